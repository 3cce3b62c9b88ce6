// Deleting a Project from one cluster: every instance it owns there, found
// by its labels, deleted in reverse apply order, each within the prune
// timeout. Never throws; failures are in the result, and namespaces that
// still hold instances are reported so the next attempt searches them.
import type { ResourceManager } from '@flotilla/kube';
import { EngineError, PruneError, RunAbortedError, messageOf } from './errors';
import { listProjectInstances, pruneInstance } from './instance-prune';
import { defaultReconcileOptions, type ReconcileOptions } from './options';
import { instanceKey, ownedBy } from './prune-plan';
import { formatRevision } from './project-reconcile';
import { callHook, emptyRunResult, namespaceSet, tenantManager } from './run-result';
import type { ClusterTarget, ProjectSpec, ReconcileHooks, RunContext, RunResult } from './types';

export interface DeleteInput {
  project: ProjectSpec;
  cluster: ClusterTarget;
  /** the digest last applied, for the report's revision */
  digest?: string;
  /** only instances of this owner (or none recorded) are deleted */
  owner?: string;
  /** namespaces that held instances after earlier runs */
  knownNamespaces?: string[];
  signal?: AbortSignal;
}

export interface DeleteDeps {
  manager: ResourceManager;
  hooks?: ReconcileHooks;
  options?: Partial<ReconcileOptions>;
}

export async function deleteProject(input: DeleteInput, deps: DeleteDeps): Promise<RunResult> {
  const options = { ...defaultReconcileOptions(), ...deps.options };
  const t0 = performance.now();
  const result = emptyRunResult(input, options.clock());
  if (input.digest) {
    result.digest = input.digest;
    result.revision = formatRevision(input.project.source.tag, input.digest);
  }
  const context: RunContext = { project: input.project, cluster: result.cluster, source: result.source, revision: result.revision };
  const manager = tenantManager(deps.manager, input.project, options, input.signal);
  const search = namespaceSet(input.knownNamespaces ?? [], [input.project.namespace]);
  let remaining = search;
  try {
    const { own, foreign } = ownedBy(await listProjectInstances(manager, input.project, search), input.owner);
    for (const f of foreign) result.warnings.push(`instance ${instanceKey(f)} is owned by ${f.owner}, not ${input.owner}: left in place`);
    for (const instance of own) {
      if (input.signal?.aborted) throw new RunAbortedError(`deletion aborted: ${messageOf(input.signal.reason)}`, { cause: input.signal.reason });
      const deleted = await pruneInstance(manager, instance, options.pruneTimeoutMs, input.signal);
      result.pruned.push(deleted);
      await callHook(result, () => deps.hooks?.instancePruned?.({ context, instance: deleted }));
    }
    remaining = namespaceSet(result.pruned.filter((p) => p.error).map((p) => p.namespace));
  } catch (err) {
    result.error = err instanceof EngineError ? err : new PruneError('(listing)', { cause: err });
  } finally {
    result.error ??= result.pruned.find((p) => p.error)?.error;
    result.ok = !result.error;
    result.namespaces = result.ok ? [] : remaining;
    result.finishedAt = options.clock();
    result.durationMs = Math.round(performance.now() - t0);
    result.timings.pruneMs = result.durationMs;
    await callHook(result, () => deps.hooks?.runFinished?.(result));
  }
  return result;
}
