// One component on one cluster, a straight line of steps: runtime values,
// bundle, then per instance build → apply (→ wait), all under the
// component's deadline. The first failing instance stops the component, as
// `timoni bundle apply` does.
import { checkInstancesPolicy } from './tenant-policy';
import { applyInstance, defaultInstanceApplyOptions, InstanceOwnershipError, OwnershipConflictError, ReadinessError, WaitTimeoutError, type ChangeSet, type ResourceManager } from '@flotilla/kube';
import { countChanges } from './change-counts';
import { DeadlineExceeded, withDeadline } from './deadline';
import {
  BundleError, ComponentTimeoutError, EngineError, InstanceApplyError, InstanceBuildError, InstanceHealthError,
  ProjectOwnershipConflictError, RunAbortedError, RuntimeValuesError, TransientGeneratorError, messageOf,
} from './errors';
import { instanceLabels, PROJECT_NAME_LABEL, PROJECT_NAMESPACE_LABEL } from './labels';
import type { ReconcileOptions } from './options';
import type { BuiltInstance, ComponentRequest, ComponentResult, InstanceResult, ManifestGenerator, ProjectSpec } from './types';

export interface ComponentRun {
  generator: ManifestGenerator;
  /** acting as the Project's service account */
  manager: ResourceManager;
  project: ProjectSpec;
  /** recorded on each instance (see ReconcileInput.owner) */
  owner?: string;
  request: Omit<ComponentRequest, 'signal'>;
  options: ReconcileOptions;
  onInstance: (instance: InstanceResult) => Promise<void>;
  /** an instance's objects are about to be waited for */
  onWaiting?: (instance: { name: string; namespace: string }, objects: string[], timeoutMs: number) => void;
  /** the whole run's signal */
  signal?: AbortSignal;
}

/** How long a timed-out component may take to unwind, so its wait can say what was not ready. */
const UNWIND_GRACE_MS = 100;

/** Never rejects: failures are in the result. */
export async function reconcileComponent(run: ComponentRun): Promise<ComponentResult> {
  const name = run.request.component.name;
  const timeoutMs = run.request.component.timeoutMs ?? run.options.componentTimeoutMs;
  const started = run.options.clock();
  const t0 = performance.now();
  // Filled in as the steps go, so a timeout still reports what was done.
  const result: ComponentResult = { name, status: 'Failed', instances: [], startedAt: started, durationMs: 0 };
  // After a timeout the steps may still be unwinding: no events once the component is reported.
  let reported = false;
  const guarded: ComponentRun = { ...run, onInstance: async (i) => (reported ? undefined : run.onInstance(i)) };
  try {
    await withDeadline(timeoutMs, run.signal, (signal, deadline) => componentSteps(guarded, result, signal, deadline), UNWIND_GRACE_MS);
    result.status = 'Succeeded';
  } catch (err) {
    result.status = 'Failed';
    if (err instanceof DeadlineExceeded) result.error = timeoutError(name, timeoutMs, result.instances.at(-1)?.error);
    else if (err instanceof EngineError) result.error = err;
    else if (run.signal?.aborted) result.error = new RunAbortedError(`component ${name}: run aborted: ${messageOf(err)}`, { cause: err });
    else result.error = new InstanceApplyError(name, '(unknown)', { cause: err });
  }
  result.durationMs = Math.round(performance.now() - t0);
  reported = true;
  return result;
}

/** A component timeout, naming what was not ready when the instance in progress was cut off in its wait. */
function timeoutError(component: string, timeoutMs: number, instanceError: unknown): ComponentTimeoutError {
  if (instanceError instanceof ComponentTimeoutError) return instanceError;
  const notReady = waitTimeoutOf(instanceError);
  return new ComponentTimeoutError(component, timeoutMs, notReady ? { cause: notReady } : undefined);
}

/** The ReadinessError in `err`'s cause chain whose wait timed out, if any. */
function waitTimeoutOf(err: unknown): ReadinessError | undefined {
  for (let e = err; e instanceof Error; e = e.cause) {
    if (e instanceof ReadinessError && e.cause instanceof WaitTimeoutError) return e;
  }
  return undefined;
}

async function componentSteps(run: ComponentRun, result: ComponentResult, signal: AbortSignal, deadline: number): Promise<void> {
  const name = result.name;
  const req: ComponentRequest = { ...run.request, signal };
  const manager = run.manager.withSignal(signal);

  let values: Record<string, string>;
  try {
    values = await run.generator.runtimeValues(req);
  } catch (err) {
    throw new RuntimeValuesError(name, { cause: err });
  }
  let bundle;
  try {
    bundle = await run.generator.bundle(req, values);
  } catch (err) {
    throw new BundleError(name, { cause: err });
  }
  result.bundle = bundle.name;
  result.instanceNames = bundle.instances.map((i) => ({ name: i.name, namespace: i.namespace }));
  checkInstancesPolicy(run.project, name, bundle.instances);

  for (const inst of bundle.instances) {
    const t0 = performance.now();
    const record: InstanceResult = {
      name: inst.name, namespace: inst.namespace, component: name, bundle: bundle.name,
      changes: [], counts: countChanges([]), ready: false, durationMs: 0,
    };
    result.instances.push(record);
    try {
      let built: BuiltInstance;
      try {
        built = await run.generator.buildInstance(req, bundle, inst.name);
      } catch (err) {
        throw new InstanceBuildError(name, inst.name, err instanceof TransientGeneratorError, { cause: err });
      }
      record.module = built.module;
      await applyOne(run, manager, bundle.name, built, record, deadline, signal);
      record.ready = !record.notReady?.length;
    } catch (err) {
      record.error = err instanceof EngineError ? err : new InstanceApplyError(name, inst.name, { cause: err });
      throw record.error;
    } finally {
      record.durationMs = Math.round(performance.now() - t0);
      record.counts = countChanges(record.changes);
      await run.onInstance(record);
    }
  }
}

async function applyOne(
  run: ComponentRun, manager: ResourceManager, bundle: string, built: BuiltInstance, record: InstanceResult, deadline: number, signal: AbortSignal,
): Promise<void> {
  const component = record.component;
  // Checked by the apply on its one read of the inventory Secret; moving an instance
  // between bundles of this Project is ours to do.
  const owner = { [PROJECT_NAME_LABEL]: run.project.name, [PROJECT_NAMESPACE_LABEL]: run.project.namespace };

  const defaults = defaultInstanceApplyOptions();
  const wait = run.request.component.wait;
  // The wait ends with its per-object report when the component's time runs out.
  const waitOptions = { ...defaults.waitOptions, ...run.options.wait, signal };
  const remaining = Math.max(1, deadline - Date.now());
  const boundByComponent = remaining <= waitOptions.timeoutMs;
  const options = {
    ...defaults,
    apply: run.options.apply,
    wait,
    waitOptions: { ...waitOptions, timeoutMs: Math.min(waitOptions.timeoutMs, remaining) },
    evaluator: built.healthCheck,
    overwriteOwnership: run.options.overwriteOwnership || run.project.overwriteOwnership === true,
    owner,
    clock: run.options.clock,
    // Kept as each step is applied (a step that fails part way reports what it applied):
    // the counts stay right when an apply, the wait or a later step fails.
    onApplied: (_step: string, cs: ChangeSet) => void record.changes.push(...cs.entries),
    onWaiting: (_step: string, objects: string[]) => run.onWaiting?.({ name: built.name, namespace: built.namespace }, objects, Math.max(0, deadline - Date.now())),
  };
  try {
    const res = await applyInstance(
      manager,
      { name: built.name, namespace: built.namespace, labels: instanceLabels(run.project, component, bundle, run.owner), module: built.module, values: built.values, images: built.images, steps: built.steps },
      options,
    );
    record.changes.push(...res.pruned.entries);
    // without `wait` the health is still assessed, once: dependents do not wait for it, the status tells it
    if (!wait) record.notReady = await notHealthy(manager, res.inventory, res.observed);
  } catch (err) {
    if (err instanceof InstanceOwnershipError) {
      const current = `${err.owner[PROJECT_NAMESPACE_LABEL] ?? ''}/${err.owner[PROJECT_NAME_LABEL] ?? ''}`;
      throw new ProjectOwnershipConflictError(component, built.name, err.instance, `Project ${current}`, { cause: err });
    }
    if (err instanceof OwnershipConflictError) {
      throw new ProjectOwnershipConflictError(component, built.name, err.instance, err.owner ? `bundle ${err.owner}` : 'no bundle (a standalone timoni apply)', { cause: err });
    }
    if (err instanceof ReadinessError) {
      record.changes.push(...err.pruned.entries);
      if (boundByComponent && err.cause instanceof WaitTimeoutError) throw timeoutError(component, run.request.component.timeoutMs ?? run.options.componentTimeoutMs, err);
      throw new InstanceHealthError(component, built.name, { cause: err });
    }
    throw new InstanceApplyError(component, built.name, { cause: err });
  }
}

/** Objects of the inventory not Current now, one check without waiting (from the apply's answers); a failed check says so. */
async function notHealthy(manager: ResourceManager, ...args: Parameters<ResourceManager['status']>): Promise<string[]> {
  try {
    return (await manager.status(...args)).filter((h) => h.status !== 'Current').map((h) => `${h.subject} ${h.status}${h.message ? `: ${h.message}` : ''}`);
  } catch (err) {
    return [`health could not be read: ${messageOf(err)}`];
  }
}
