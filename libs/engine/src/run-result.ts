// Pieces every kind of run shares: the empty result it fills in, hooks whose
// failures become warnings, and the identity it acts as.
import { serviceAccountImpersonation, type ResourceManager } from '@flotilla/kube';
import { messageOf, type EngineError } from './errors';
import type { ReconcileOptions } from './options';
import type { ProjectSpec, RunResult } from './types';

export function emptyRunResult(input: { project: ProjectSpec; cluster: { name: string; group: string } }, startedAt: Date): RunResult {
  return {
    project: { name: input.project.name, namespace: input.project.namespace },
    cluster: { name: input.cluster.name, group: input.cluster.group },
    source: input.project.source.repository,
    tag: input.project.source.tag,
    ok: false,
    startedAt,
    finishedAt: startedAt,
    durationMs: 0,
    timings: { resolveMs: 0, fetchMs: 0, loadMs: 0, componentsMs: 0, pruneMs: 0 },
    components: [],
    pruned: [],
    namespaces: [],
    warnings: [],
  };
}

export async function callHook(result: RunResult, hook: () => void | Promise<void> | undefined): Promise<void> {
  try {
    await hook();
  } catch (err) {
    result.warnings.push(`hook failed: ${messageOf(err)}`);
  }
}

/** The manager acting as the Project's service account (unless the options say the caller already is it), bound to the run's signal. */
export function tenantManager(manager: ResourceManager, project: ProjectSpec, options: ReconcileOptions, signal?: AbortSignal): ResourceManager {
  const tenant = options.impersonate ? manager.impersonate(serviceAccountImpersonation(project.namespace, project.serviceAccountName)) : manager;
  return signal ? tenant.withSignal(signal) : tenant;
}

/** Sorted, without duplicates. */
export function namespaceSet(...lists: ReadonlyArray<readonly string[]>): string[] {
  return [...new Set(lists.flat())].sort();
}

/** A run that could not start (no way to reach the cluster, say): the error alone. */
export function failedRunResult(input: { project: ProjectSpec; cluster: { name: string; group: string } }, error: EngineError, at: Date): RunResult {
  return { ...emptyRunResult(input, at), error };
}
