import type { Assignment } from '@flotilla/agent-protocol';
import { NotFoundError, type ObjectClient } from '@flotilla/kube';
import type { Logger } from '../logging/logger';
import { HUB_MANAGED_BY, HUB_TARGET_ANNOTATION, PROJECT_API_VERSION, PROJECT_KIND, RECONCILE_REQUESTED_ANNOTATION, type ProjectResource } from '../project/project-resource';
import { MANAGED_BY_LABEL, projectResourceOf } from './assignment-resource';

const FIELD_MANAGER = 'flotilla-agent-hub';

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

  async apply(a: Assignment): Promise<void> {
    const address = { apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: a.projectNamespace, name: a.projectName };
    if (a.delete) {
      // the finalizer deletes the instances first; the report of that run goes to the hub
      await this.client.delete(address).catch((err: unknown) => {
        if (!(err instanceof NotFoundError)) throw err;
      });
      return;
    }
    await this.ensureNamespace(a.projectNamespace);
    await this.client.apply(projectResourceOf(a), { dryRun: false, force: true, fieldManager: FIELD_MANAGER });
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
