// Instances that left their component or the project: found by the
// Project's labels on inventory Secrets, deleted with libs/kube's instance
// delete (objects in reverse order, then the Secret).
import { InventoryListError, type ResourceManager } from '@flotilla/kube';
import { countChanges } from './change-counts';
import { DeadlineExceeded, withDeadline } from './deadline';
import { PruneError } from './errors';
import { PROJECT_COMPONENT_LABEL, PROJECT_OWNER_LABEL, projectSelector } from './labels';
import type { StoredInstanceRef } from './prune-plan';
import type { PrunedInstance, ProjectSpec } from './types';

/**
 * The Project's instances on the cluster. Lists cluster-wide when the
 * identity may; otherwise namespace by namespace over `namespaces`
 * (namespaces it may not read cannot hold instances it applied).
 */
export async function listProjectInstances(manager: ResourceManager, project: ProjectSpec, namespaces: readonly string[]): Promise<StoredInstanceRef[]> {
  let found;
  try {
    found = await manager.listInventories(projectSelector(project), namespaces);
  } catch (err) {
    const where = err instanceof InventoryListError && err.namespace ? `(listing namespace ${err.namespace})` : '(listing)';
    throw new PruneError(where, { cause: err });
  }
  return found.map((s) => ({
    name: s.name,
    namespace: s.namespace,
    component: s.labels[PROJECT_COMPONENT_LABEL] ?? '',
    ...(s.labels[PROJECT_OWNER_LABEL] ? { owner: s.labels[PROJECT_OWNER_LABEL] } : {}),
  }));
}

/** How long a delete stopped by its deadline may take to say what it was waiting for. */
const REPORT_GRACE_MS = 2_000;

/** Deletes one instance within `timeoutMs`; failures are in the result, naming what did not go. */
export async function pruneInstance(manager: ResourceManager, instance: StoredInstanceRef, timeoutMs: number, signal?: AbortSignal): Promise<PrunedInstance> {
  const t0 = performance.now();
  const out: PrunedInstance = { ...instance, changes: [], counts: countChanges([]), durationMs: 0 };
  // What the delete itself reported when the deadline stopped it: the termination
  // wait names the objects still there (a finalizer nobody removes) and their state.
  let stopped: unknown;
  try {
    await withDeadline(
      timeoutMs,
      signal,
      async (s, deadline) => {
        try {
          const cs = await manager.withSignal(s).deleteInstance(instance, {
            wait: true,
            termination: { intervalMs: 1_000, initialIntervalMs: 100, timeoutMs: Math.max(1, deadline - Date.now()), failFast: false, signal: s },
          });
          out.changes = cs?.entries ?? [];
        } catch (err) {
          stopped = err;
          throw err;
        }
      },
      REPORT_GRACE_MS,
    );
  } catch (err) {
    const subject = `${instance.namespace}/${instance.name}`;
    out.error = new PruneError(subject, { cause: err instanceof DeadlineExceeded && stopped !== undefined ? stopped : err });
    const partial = (err as { changeSet?: { entries: PrunedInstance['changes'] } }).changeSet;
    if (partial) out.changes = partial.entries;
  }
  out.counts = countChanges(out.changes);
  out.durationMs = Math.round(performance.now() - t0);
  return out;
}
