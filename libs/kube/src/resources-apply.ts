// §5.2–5.4: staged server-side apply. Dry run first; undrifted objects are left alone;
// drifted ones are applied one by one with the constant field manager and forced ownership.
import { isForceEnabled, isOneOff } from './action-annotations';
import { changeSetEntry } from './changeset';
import { FIELD_MANAGER } from './constants';
import { ApplyError, DryRunError, KubeApiError, StagedApplyError } from './errors';
import { hasDrifted } from './object-drift';
import { addressOf, type ObjectClient } from './object-client';
import { objectRef } from './object-id';
import { ObservedObjects } from './object-observations';
import { waitForServedKinds } from './discovery-wait';
import { stageObjects } from './object-sort';
import { ownershipTakeoverPatch } from './ownership-takeover';
import { defaultWaitOptions, waitForSet, waitForTermination, waitTargets, targetOf, type WaitOptions } from './resources-wait';
import type { ChangeSet, ChangeSetEntry, KubeObject } from './types';

export interface ApplyOptions {
  /** recreate objects whose immutable fields changed (Timoni `--force`); per object via annotation */
  force: boolean;
  /** re-assign kubectl/Helm managed fields to the field manager first (§5.1) */
  takeOwnership: boolean;
  /** dry runs in flight at once (Timoni: 4); applies stay sequential */
  concurrency: number;
  /** wait used for CRDs, Namespaces, ClusterRoles and *Class kinds, which are always waited for */
  stageWait: WaitOptions;
  /** how often to check that a recreated object is gone (Timoni: 5 s) */
  recreatePollMs: number;
  /** how long a recreated object may take to disappear */
  recreateTimeoutMs: number;
}

export function defaultApplyOptions(): ApplyOptions {
  return {
    force: false,
    takeOwnership: true,
    concurrency: 4,
    stageWait: defaultWaitOptions(),
    recreatePollMs: 5_000,
    recreateTimeoutMs: 5 * 60_000,
  };
}

/** An API error that means "immutable field" (kubectl's rule plus CEL/webhook messages). */
export function isImmutableError(err: unknown): boolean {
  if (!(err instanceof KubeApiError)) return false;
  if (err.statusCode === 409 || err.statusCode === 422) return true;
  return /is\simmutable|immutable\sfield/.test(err.message);
}

interface Planned {
  obj: KubeObject;
  entry: ChangeSetEntry;
  /** apply for real */
  apply: boolean;
  /** the server's latest answer for the object: the dry run's, or the live object when it is left alone */
  answer?: KubeObject;
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    // after one failure no new object is started (a forced recreate must not follow an error)
    while (next < items.length && !failed) {
      const i = next++;
      try {
        out[i] = await fn(items[i]);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  });
  await Promise.all(workers);
  return out;
}

/** Dry-runs one object and decides what to do with it; recreates it first when forced. */
async function plan(client: ObjectClient, obj: KubeObject, options: ApplyOptions): Promise<Planned> {
  const ref = objectRef(obj);
  const subject = changeSetEntry(ref, 'unchanged').subject;
  const address = addressOf(obj);
  let live = await client.getOptional(address);
  if (live && isOneOff(obj)) return { obj, entry: changeSetEntry(ref, 'skipped', 'one-off object exists'), apply: false, answer: live };

  if (live && options.takeOwnership) {
    const patch = ownershipTakeoverPatch(live);
    if (patch.length) live = await client.patch(address, patch, 'json');
  }

  const call = { dryRun: true, force: true, fieldManager: FIELD_MANAGER };
  let dryRun: KubeObject;
  try {
    dryRun = await client.apply(obj, call);
  } catch (err) {
    const immutable = isImmutableError(err);
    const force = options.force || isForceEnabled(obj) || isForceEnabled(live);
    if (!(immutable && force && live)) throw new DryRunError(subject, immutable, { cause: err });
    await client.delete(address, 'Background');
    await waitForTermination(client, [targetOf(obj)], {
      ...defaultWaitOptions(),
      intervalMs: options.recreatePollMs,
      initialIntervalMs: Math.min(250, options.recreatePollMs),
      timeoutMs: options.recreateTimeoutMs,
    });
    try {
      await client.apply(obj, call);
    } catch (again) {
      throw new DryRunError(subject, isImmutableError(again), { cause: again });
    }
    return { obj, entry: changeSetEntry(ref, 'created', 'recreated: immutable field changed'), apply: true };
  }
  if (!live) return { obj, entry: changeSetEntry(ref, 'created'), apply: true };
  if (!hasDrifted(live, dryRun)) return { obj, entry: changeSetEntry(ref, 'unchanged'), apply: false, answer: dryRun };
  return { obj, entry: changeSetEntry(ref, 'configured'), apply: true };
}

/**
 * Applies one set of objects (already normalized): dry runs in parallel, then the drifted ones
 * in order. The change set lists every object; untouched ones keep their resourceVersion.
 */
export async function applyAll(client: ObjectClient, objects: readonly KubeObject[], options: ApplyOptions = defaultApplyOptions()): Promise<ChangeSet> {
  return { entries: await applyObjects(client, objects, options, [], undefined) };
}

/**
 * applyAll; when an apply fails, `settled` receives (in plan order) the entries of the objects
 * already applied or found unchanged, before the error is thrown. `observed` receives the
 * server's answer for each object left alone or applied.
 */
async function applyObjects(
  client: ObjectClient,
  objects: readonly KubeObject[],
  options: ApplyOptions,
  settled: ChangeSetEntry[],
  observed: ObservedObjects | undefined,
): Promise<ChangeSetEntry[]> {
  const planned = await mapLimit(objects, options.concurrency, async (o) => {
    try {
      return await plan(client, o, options);
    } catch (err) {
      // reads and ownership patches fail as apply errors naming the object
      if (err instanceof DryRunError) throw err;
      throw new ApplyError(changeSetEntry(objectRef(o), 'unchanged').subject, { cause: err });
    }
  });
  for (const [i, p] of planned.entries()) {
    if (!p.apply) {
      if (p.answer) observed?.record(addressOf(p.obj), p.answer);
      continue;
    }
    try {
      observed?.record(addressOf(p.obj), await client.apply(p.obj, { dryRun: false, force: true, fieldManager: FIELD_MANAGER }));
    } catch (err) {
      settled.push(...planned.filter((q, j) => !q.apply || j < i).map((q) => q.entry));
      throw new ApplyError(p.entry.subject, { cause: err });
    }
  }
  return planned.map((p) => p.entry);
}

/**
 * §5.2 staging: CRDs/Namespaces/ClusterRoles, then *Class kinds (both applied and waited for),
 * then Roles, then the rest. After CRDs, discovery is refreshed until their kinds resolve.
 * A failing stage throws StagedApplyError carrying what was applied before it.
 */
export async function applyAllStaged(
  client: ObjectClient,
  objects: readonly KubeObject[],
  options: ApplyOptions = defaultApplyOptions(),
  observed: ObservedObjects = new ObservedObjects(),
): Promise<ChangeSet> {
  const result: ChangeSet = { entries: [] };
  for (const stage of stageObjects(objects)) {
    const settled: ChangeSetEntry[] = [];
    try {
      result.entries.push(...(await applyObjects(client, stage.objects, options, settled, observed)));
    } catch (err) {
      throw new StagedApplyError(stage.name, { entries: [...result.entries, ...settled] }, { cause: err });
    }
    if (stage.wait) {
      try {
        await waitForSet(client, waitTargets(stage.objects), { ...options.stageWait, observed });
        const crds = stage.objects.filter((o) => o.kind === 'CustomResourceDefinition');
        if (crds.length) {
          client.discovery.invalidate();
          await waitForServedKinds(client, crds, options.stageWait);
        }
      } catch (err) {
        // this stage is applied, only not ready: its entries count
        throw new StagedApplyError(stage.name, { entries: [...result.entries] }, { cause: err });
      }
    }
  }
  return result;
}
