// §5.7: install or upgrade one instance — state first, staged apply per step, wait,
// prune what left the inventory, then finalise the state. Timoni's reconciler, as data.
import { BUNDLE_NAME_LABEL } from './constants';
import { InstanceOwnershipError, OwnershipConflictError, ReadinessError, StagedApplyError } from './errors';
import type { HealthCheckEvaluator } from './health/health-registry';
import { buildInstanceRecord, recordObjects, sameInventory, staleObjects, type ModuleReference } from './instance-state';
import type { StoredInstance } from './inventory-storage';
import { formatSubject, objectRef } from './object-id';
import { ObservedObjects } from './object-observations';
import { sortForApply } from './object-sort';
import type { ResourceManager } from './resource-manager';
import { defaultApplyOptions, type ApplyOptions } from './resources-apply';
import { defaultWaitOptions, type WaitOptions } from './resources-wait';
import type { ChangeSet, KubeObject, VersionedObjectRef } from './types';

export interface InstanceApplyInput {
  name: string;
  namespace: string;
  /** instance labels, e.g. `bundle.timoni.sh/name` (also put on the state Secret) */
  labels?: Record<string, string>;
  module: ModuleReference;
  /** CUE text of the merged values */
  values: string;
  images: string[];
  /** apply steps in order (`timoni.apply.<step>`), objects as rendered */
  steps: Array<{ name: string; objects: KubeObject[] }>;
}

export interface InstanceApplyOptions {
  apply: ApplyOptions;
  /** wait for each step to be ready before the next (Timoni `--wait`, default on) */
  wait: boolean;
  waitOptions: WaitOptions;
  /** module CUE health checks */
  evaluator?: HealthCheckEvaluator;
  /** take over an instance owned by another bundle or owner (Timoni `--overwrite-ownership`) */
  overwriteOwnership: boolean;
  /**
   * Label values naming who must own the instance (e.g. a Project's name and namespace),
   * checked on the same read of the inventory Secret the apply needs anyway. A Secret that
   * carries any of these keys with other values belongs to someone else: InstanceOwnershipError
   * unless overwriteOwnership. One carrying all of them is ours and may move between bundles;
   * one carrying none of them is checked by its bundle label as without this option.
   */
  owner?: Record<string, string>;
  clock: () => Date;
  /**
   * Called with each step's change set as soon as it is applied, so a caller keeps
   * what changed even when a later wait, prune or state write fails or is cut off.
   * A step whose apply fails part way reports what it applied before failing.
   */
  onApplied?: (step: string, changes: ChangeSet) => void;
  /** Called before each step's wait with the `Kind/namespace/name` of the objects waited for, so a caller can say what it waits on. */
  onWaiting?: (step: string, subjects: string[]) => void;
}

export function defaultInstanceApplyOptions(): InstanceApplyOptions {
  return { apply: defaultApplyOptions(), wait: true, waitOptions: defaultWaitOptions(), overwriteOwnership: false, clock: () => new Date() };
}

export interface InstanceApplyResult {
  /** per object of every step, in apply order */
  applied: ChangeSet;
  pruned: ChangeSet;
  /** the inventory now stored */
  inventory: VersionedObjectRef[];
  installed: boolean;
  /** the server's answers for objects no wait looked at (all of them without `wait`), for a status check that follows */
  observed: ObservedObjects;
}

export async function applyInstance(manager: ResourceManager, input: InstanceApplyInput, options: InstanceApplyOptions = defaultInstanceApplyOptions()): Promise<InstanceApplyResult> {
  const identity = { name: input.name, namespace: input.namespace };
  const steps = [];
  for (const s of input.steps) steps.push({ name: s.name, objects: await manager.prepare(s.objects, identity) });
  const desired = sortForApply(steps.flatMap((s) => s.objects)).map(objectRef);

  const stored = await manager.storage.read(input.namespace, input.name);
  if (stored && !options.overwriteOwnership) checkOwnership(stored, input, options.owner);
  const stale = staleObjects([...recordObjects(stored?.record), ...recordObjects(stored?.pending)], desired);
  const record = (at: Date) =>
    buildInstanceRecord({ ...identity, labels: input.labels, module: input.module, values: input.values, objects: desired, images: input.images, lastTransitionTime: at });

  if (!stored) await manager.storage.write(record(options.clock()));
  else if (!sameInventory(stored.record, record(options.clock()))) await manager.storage.writePending(record(options.clock()));

  const applied: ChangeSet = { entries: [] };
  // each step's wait takes its first look from the apply's answers
  const observed = new ObservedObjects();
  let readiness: { step: string; error: unknown } | undefined;
  for (const step of steps) {
    let cs: ChangeSet;
    try {
      cs = await manager.applyAllStaged(step.objects, options.apply, observed);
    } catch (err) {
      // The inventory (or its pending record) already lists these objects; the caller counts them.
      if (err instanceof StagedApplyError && err.changeSet.entries.length) {
        applied.entries.push(...err.changeSet.entries);
        options.onApplied?.(step.name, err.changeSet);
      }
      throw err;
    }
    applied.entries.push(...cs.entries);
    options.onApplied?.(step.name, cs);
    if (!options.wait) continue;
    options.onWaiting?.(step.name, step.objects.map((o) => formatSubject(objectRef(o))));
    try {
      await manager.wait(step.objects, { ...options.waitOptions, evaluator: options.evaluator ?? options.waitOptions.evaluator, observed });
    } catch (error) {
      readiness = { step: step.name, error };
      break;
    }
  }

  const pruned = await manager.prune(stale, identity, options.wait ? options.waitOptions : undefined);
  if (readiness) throw new ReadinessError(`${input.namespace}/${input.name}`, readiness.step, applied, pruned, { cause: readiness.error });

  await manager.storage.write(record(options.clock()));
  return { applied, pruned, inventory: desired, installed: !stored, observed };
}

/** §3.4 ownership, from the stored Secret's labels; see InstanceApplyOptions.owner. */
function checkOwnership(stored: StoredInstance, input: InstanceApplyInput, wantedOwner: Record<string, string> | undefined): void {
  const where = `${input.namespace}/${input.name}`;
  const labels = stored.secret.metadata.labels ?? {};
  if (wantedOwner) {
    const keys = Object.keys(wantedOwner);
    const current = Object.fromEntries(keys.filter((k) => labels[k] !== undefined).map((k) => [k, labels[k]]));
    if (Object.keys(current).length) {
      if (keys.every((k) => current[k] === wantedOwner[k])) return;
      throw new InstanceOwnershipError(where, current, wantedOwner);
    }
  }
  const owner = labels[BUNDLE_NAME_LABEL];
  const wanted = input.labels?.[BUNDLE_NAME_LABEL];
  if (owner !== wanted) throw new OwnershipConflictError(where, owner, wanted);
}
