import type { Assignment } from '@flotilla/agent-protocol';
import { ConflictError, defaultWaitOptions, NotFoundError, type ObjectAddress, type ObjectClient, targetOf, waitForTermination, WaitTimeoutError } from '@flotilla/kube';
import type { Logger } from '../logging/logger';
import { DELETION_POLICY_ANNOTATION, HUB_TARGET_ANNOTATION, PROJECT_API_VERSION, PROJECT_KIND, RECONCILE_REQUESTED_ANNOTATION, type ProjectResource } from '../project/project-resource';
import { projectResourceOf } from './assignment-resource';
import { ForeignProjectError, HUB_MANAGED_SELECTOR, isHubManaged } from './project-ownership';

const FIELD_MANAGER = 'flotilla-agent-hub';
/** How long a replaced Project may take to go (its finalizer only lets go of the instances). */
const REPLACE_DEADLINE_MS = 60_000;
/** Reads and writes of one assignment before a moving resourceVersion is an error. */
const PRECONDITION_ATTEMPTS = 5;

/** The fields the CRD keeps immutable: a change of them needs a new resource. */
const fixedPart = (p: ProjectResource) => JSON.stringify([p.spec?.source?.repository ?? '', p.spec?.source?.tag ?? '', p.spec?.source?.path ?? '', p.spec?.serviceAccountName ?? '']);

/**
 * Writes assignments into the cluster as Project resources and takes away
 * those the hub deleted; the Project controller does the rest, exactly as
 * for Projects created by hand. Only Projects carrying the hub's label are
 * ever replaced or deleted: a tenant's own Project of the same name stays.
 */
export class AssignmentWriter {
  constructor(
    private readonly client: ObjectClient,
    private readonly log: Logger,
  ) {}

  /**
   * 'absent': a deletion of a Project the cluster does not hold (never
   * written, or gone already); 'foreign': a deletion of a Project someone
   * else made, left in place. No run will report either. A write over a
   * Project someone else made throws ForeignProjectError.
   */
  async apply(a: Assignment): Promise<'written' | 'absent' | 'foreign'> {
    // the Project's own controller writes status and finalizers, which move its resourceVersion: read again
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.applyOnce(a);
      } catch (err) {
        if (!(err instanceof ConflictError) || attempt === PRECONDITION_ATTEMPTS) throw err;
      }
    }
  }

  private async applyOnce(a: Assignment): Promise<'written' | 'absent' | 'foreign'> {
    const address = { apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: a.projectNamespace, name: a.projectName };
    const existing = (await this.client.getOptional(address)) as ProjectResource | undefined;
    if (a.delete) {
      if (!existing) return 'absent';
      if (!isHubManaged(existing)) return 'foreign';
      // the finalizer deletes the instances first; the report of that run goes to the hub
      return (await this.deleteExactly(existing)) ? 'written' : 'absent';
    }
    if (existing && !isHubManaged(existing)) throw new ForeignProjectError(a.projectNamespace, a.projectName);
    await this.ensureNamespace(a.projectNamespace);
    const desired = projectResourceOf(a);
    if (existing && fixedPart(existing) === fixedPart(desired)) {
      // the resourceVersion read is a precondition: a Project put in its place meanwhile is not written over
      await this.client.apply({ ...desired, metadata: { ...desired.metadata, resourceVersion: existing.metadata.resourceVersion } }, { dryRun: false, force: true, fieldManager: FIELD_MANAGER });
      return 'written';
    }
    if (existing) await this.replace(existing);
    await this.create(desired);
    return 'written';
  }

  /**
   * A create, not an apply: a Project made under that name since it was read
   * is never taken over. Its 409 is a conflict `apply` reads again for: a
   * tenant's Project is then refused as foreign, the hub's own (an earlier
   * write of the same assignment) is written over as usual.
   */
  private async create(p: ProjectResource): Promise<void> {
    const address = { apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: p.metadata.namespace, name: p.metadata.name };
    await this.client.connection.request({
      method: 'POST',
      path: await this.client.collectionPathOf(PROJECT_API_VERSION, PROJECT_KIND, p.metadata.namespace),
      query: { fieldManager: FIELD_MANAGER },
      body: p,
      subject: `Project/${address.namespace}/${address.name}`,
    });
  }

  /**
   * Deletes the very object that was read (a uid precondition): a Project
   * someone made under the same name in between is not touched. False when
   * it had gone already.
   */
  private async deleteExactly(p: ProjectResource): Promise<boolean> {
    const address: ObjectAddress = { apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: p.metadata.namespace, name: p.metadata.name };
    try {
      await this.client.connection.request({
        method: 'DELETE',
        path: await this.client.objectPath(address),
        body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', preconditions: { uid: p.metadata.uid } },
        subject: `Project/${address.namespace}/${address.name}`,
      });
      return true;
    } catch (err) {
      if (err instanceof NotFoundError) return false;
      // 409: the uid changed, so the object now under that name is another one
      if (err instanceof ConflictError) throw new ForeignProjectError(address.namespace ?? '', address.name, { cause: err });
      throw err;
    }
  }

  /**
   * The hub changed the Project's source (a new tag, repository or path) or
   * service account, which the CRD keeps immutable: the resource goes with
   * deletion policy Orphan, so its instances keep running, and the new one
   * takes them over at its first run, as a push cluster's would.
   */
  private async replace(p: ProjectResource): Promise<void> {
    const address = { apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: p.metadata.namespace, name: p.metadata.name };
    this.log.info('the hub changed the Project\'s source or service account: recreating its resource, keeping the instances', { project: `${p.metadata.namespace}/${p.metadata.name}` });
    if (!p.metadata.deletionTimestamp) {
      await this.client.patch(address, { metadata: { annotations: { [DELETION_POLICY_ANNOTATION]: 'Orphan' } } }, 'merge', { fieldManager: FIELD_MANAGER });
      await this.deleteExactly(p);
    }
    try {
      await waitForTermination(this.client, [targetOf(p)], { ...defaultWaitOptions(), initialIntervalMs: 200, intervalMs: 1_000, timeoutMs: REPLACE_DEADLINE_MS });
    } catch (err) {
      if (!(err instanceof WaitTimeoutError)) throw err;
      throw new Error(`Project ${address.namespace}/${address.name} did not go within ${REPLACE_DEADLINE_MS / 1000}s, so it cannot be recreated with the hub's new source`, { cause: err });
    }
  }

  /** The hub unassigned a Target (its cluster no longer matches): the hub's Project resource goes, and with it its instances. */
  async remove(targetId: string): Promise<void> {
    const p = await this.find(targetId);
    if (p) await this.deleteExactly(p);
  }

  async reconcileNow(targetIds: string[]): Promise<void> {
    for (const id of targetIds) {
      const p = await this.find(id);
      if (p) await this.client.patch({ apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: p.metadata.namespace, name: p.metadata.name }, { metadata: { annotations: { [RECONCILE_REQUESTED_ANNOTATION]: `hub-now-${Date.now()}` } } }, 'merge', { fieldManager: FIELD_MANAGER });
    }
  }

  /** The Project resource the agent wrote for a Target, if any (only the hub's are looked at). */
  async find(targetId: string): Promise<ProjectResource | undefined> {
    const all = (await this.client.list(PROJECT_API_VERSION, PROJECT_KIND, { labelSelector: HUB_MANAGED_SELECTOR })) as ProjectResource[];
    return all.find((p) => isHubManaged(p) && p.metadata.annotations?.[HUB_TARGET_ANNOTATION] === targetId);
  }

  /**
   * A plain create, never an apply: the agent may create namespaces but not
   * patch them, so it cannot relabel one that exists (Pod Security levels).
   */
  private async ensureNamespace(name: string): Promise<void> {
    const found = await this.client.getOptional({ apiVersion: 'v1', kind: 'Namespace', name });
    if (found) return;
    try {
      await this.client.connection.request({
        method: 'POST',
        path: '/api/v1/namespaces',
        query: { fieldManager: FIELD_MANAGER },
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
        subject: `Namespace/${name}`,
      });
    } catch (err) {
      // made in between by someone else: it is there, which is all the assignment needs
      if (!(err instanceof ConflictError)) throw err;
    }
  }
}
