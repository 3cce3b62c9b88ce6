import type { Assignment } from '@flotilla/agent-protocol';
import { defaultWaitOptions, type ObjectClient, targetOf, waitForTermination, WaitTimeoutError } from '@flotilla/kube';
import type { Logger } from '../logging/logger';
import { DELETION_POLICY_ANNOTATION, HUB_MANAGED_BY, HUB_TARGET_ANNOTATION, PROJECT_API_VERSION, PROJECT_KIND, RECONCILE_REQUESTED_ANNOTATION, type ProjectResource } from '../project/project-resource';
import { MANAGED_BY_LABEL, projectResourceOf } from './assignment-resource';

const FIELD_MANAGER = 'flotilla-agent-hub';
/** How long a replaced Project may take to go (its finalizer only lets go of the instances). */
const REPLACE_DEADLINE_MS = 60_000;

/** The fields the CRD keeps immutable: a change of them needs a new resource. */
const fixedPart = (p: ProjectResource) => JSON.stringify([p.spec?.source?.repository ?? '', p.spec?.source?.tag ?? '', p.spec?.source?.path ?? '', p.spec?.serviceAccountName ?? '']);

/**
 * Writes assignments into the cluster as Project resources and takes away
 * those the hub deleted; the Project controller does the rest, exactly as
 * for Projects created by hand.
 */
export class AssignmentWriter {
  constructor(
    private readonly client: ObjectClient,
    private readonly log: Logger,
  ) {}

  /** 'absent': a deletion of a Project the cluster does not hold (never written, or gone already): no run will report it. */
  async apply(a: Assignment): Promise<'written' | 'absent'> {
    const address = { apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: a.projectNamespace, name: a.projectName };
    if (a.delete) {
      // the finalizer deletes the instances first; the report of that run goes to the hub
      return (await this.client.delete(address)) ? 'written' : 'absent';
    }
    await this.ensureNamespace(a.projectNamespace);
    const desired = projectResourceOf(a);
    const existing = (await this.client.getOptional(address)) as ProjectResource | undefined;
    if (existing && fixedPart(existing) !== fixedPart(desired)) await this.replace(existing);
    await this.client.apply(desired, { dryRun: false, force: true, fieldManager: FIELD_MANAGER });
    return 'written';
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
      await this.client.delete(address);
    }
    try {
      await waitForTermination(this.client, [targetOf(p)], { ...defaultWaitOptions(), initialIntervalMs: 200, intervalMs: 1_000, timeoutMs: REPLACE_DEADLINE_MS });
    } catch (err) {
      if (!(err instanceof WaitTimeoutError)) throw err;
      throw new Error(`Project ${address.namespace}/${address.name} did not go within ${REPLACE_DEADLINE_MS / 1000}s, so it cannot be recreated with the hub's new source`, { cause: err });
    }
  }

  /** The full set on connect: every assignment written. */
  async applyAll(assignments: Assignment[]): Promise<void> {
    for (const a of assignments) {
      try {
        await this.apply(a);
      } catch (err) {
        this.log.warn('assignment not written', { project: `${a.projectNamespace}/${a.projectName}`, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /** The hub unassigned a Target (its cluster no longer matches): the Project resource goes, and with it its instances. */
  async remove(targetId: string): Promise<void> {
    const p = await this.find(targetId);
    if (p) await this.client.delete({ apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: p.metadata.namespace, name: p.metadata.name });
  }

  async reconcileNow(targetIds: string[]): Promise<void> {
    for (const id of targetIds) {
      const p = await this.find(id);
      if (p) await this.client.patch({ apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: p.metadata.namespace, name: p.metadata.name }, { metadata: { annotations: { [RECONCILE_REQUESTED_ANNOTATION]: `hub-now-${Date.now()}` } } }, 'merge', { fieldManager: FIELD_MANAGER });
    }
  }

  /** The Project resource the agent wrote for a Target, if any. */
  async find(targetId: string): Promise<ProjectResource | undefined> {
    const all = (await this.client.list(PROJECT_API_VERSION, PROJECT_KIND, { labelSelector: `${MANAGED_BY_LABEL}=${HUB_MANAGED_BY}` })) as ProjectResource[];
    return all.find((p) => p.metadata.annotations?.[HUB_TARGET_ANNOTATION] === targetId);
  }

  private async ensureNamespace(name: string): Promise<void> {
    const found = await this.client.getOptional({ apiVersion: 'v1', kind: 'Namespace', name });
    if (!found) await this.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false, force: true, fieldManager: FIELD_MANAGER });
  }
}
