// §5.6: poll objects until all are Current, fail fast on Failed, time out with a per-object report.
import { isWaitDisabled } from './action-annotations';
import { WaitFailedError, WaitTimeoutError } from './errors';
import type { HealthCheckEvaluator, HealthRegistry } from './health/health-registry';
import { defaultHealthRegistry } from './health/health-registry';
import { addressOf, type ObjectAddress, type ObjectClient } from './object-client';
import { formatSubject, objectRef } from './object-id';
import type { ObservedObjects } from './object-observations';
import type { KubeObject, ObjectHealth, VersionedObjectRef } from './types';

export interface WaitOptions {
  /** longest pause between polls (Timoni: 5 s); polls start faster and back off to this */
  intervalMs: number;
  /** first pause between polls */
  initialIntervalMs: number;
  /** overall limit (Timoni: 5 min) */
  timeoutMs: number;
  /** stop at the first Failed object */
  failFast: boolean;
  /** kind rules; defaultHealthRegistry() when absent */
  health?: HealthRegistry;
  /** the module's CUE health checks (libs/timoni) */
  evaluator?: HealthCheckEvaluator;
  /** stops waiting early (e.g. the reconcile's deadline) */
  signal?: AbortSignal;
  /** the apply's answers: the first poll reads an object from here instead of GETting it */
  observed?: ObservedObjects;
}

export function defaultWaitOptions(): WaitOptions {
  return { intervalMs: 5_000, initialIntervalMs: 250, timeoutMs: 5 * 60_000, failFast: true };
}

export interface WaitTarget {
  address: ObjectAddress;
  ref: VersionedObjectRef;
  subject: string;
}

/** Targets for the objects of a set, leaving out those marked `action.timoni.sh/wait: disabled`. */
export function waitTargets(objects: readonly KubeObject[]): WaitTarget[] {
  return objects.filter((o) => !isWaitDisabled(o)).map(targetOf);
}

export function targetOf(obj: KubeObject): WaitTarget {
  const ref = objectRef(obj);
  return { address: addressOf(obj), ref, subject: formatSubject(ref) };
}

export function targetOfRef(ref: VersionedObjectRef): WaitTarget {
  const apiVersion = ref.group ? `${ref.group}/${ref.version}` : ref.version;
  return { address: { apiVersion, kind: ref.kind, namespace: ref.namespace || undefined, name: ref.name }, ref, subject: formatSubject(ref) };
}

/** A pause that ends early on abort; its listener leaves with it, or every poll of a long wait would add one to the signal. */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** Health of every target now (missing objects are NotFound); an object `observed` holds is taken from there. */
export async function checkHealth(client: ObjectClient, targets: readonly WaitTarget[], options: Pick<WaitOptions, 'health' | 'evaluator' | 'observed'> = {}): Promise<ObjectHealth[]> {
  const health = options.health ?? defaultHealthRegistry();
  return Promise.all(
    targets.map(async (t): Promise<ObjectHealth> => {
      const live = options.observed?.take(t.address) ?? (await client.getOptional(t.address));
      if (!live) return { ref: t.ref, subject: t.subject, status: 'NotFound', message: 'object not found' };
      const r = await health.computeWithChecks({ ...live, apiVersion: live.apiVersion ?? t.address.apiVersion, kind: live.kind ?? t.address.kind }, options.evaluator);
      return { ref: t.ref, subject: t.subject, status: r.status, message: r.message };
    }),
  );
}

/**
 * Waits until every target is Current. Throws WaitFailedError on a Failed object (failFast),
 * WaitTimeoutError listing each object not ready with its last status.
 */
export async function waitForSet(client: ObjectClient, targets: readonly WaitTarget[], options: WaitOptions = defaultWaitOptions()): Promise<ObjectHealth[]> {
  const deadline = Date.now() + options.timeoutMs;
  const health = options.health ?? defaultHealthRegistry();
  let pause = Math.min(options.initialIntervalMs, options.intervalMs);
  let last: ObjectHealth[] | undefined;
  for (;;) {
    // Stopped from outside (e.g. the component deadline): report what was last seen, not the aborted GET.
    if (options.signal?.aborted) throw new WaitTimeoutError(options.timeoutMs, notReady(targets, last));
    try {
      // the apply's answers serve the first poll only (taking them empties the set)
      last = await checkHealth(client, targets, { health, evaluator: options.evaluator, observed: options.observed });
    } catch (err) {
      if (options.signal?.aborted) throw new WaitTimeoutError(options.timeoutMs, notReady(targets, last));
      throw err;
    }
    const failed = last.filter((h) => h.status === 'Failed');
    if (failed.length && options.failFast) throw new WaitFailedError(failed);
    const pending = last.filter((h) => h.status !== 'Current' && h.status !== 'Failed');
    if (!pending.length) {
      if (failed.length) throw new WaitFailedError(failed);
      return last;
    }
    const left = deadline - Date.now();
    if (left <= 0 || options.signal?.aborted) throw new WaitTimeoutError(options.timeoutMs, notReady(targets, last));
    await sleep(Math.min(pause, left), options.signal);
    pause = Math.min(pause * 2, options.intervalMs);
  }
}

/** The objects not Current at the last poll; before any poll finished, every target with status Unknown. */
function notReady(targets: readonly WaitTarget[], last: ObjectHealth[] | undefined): ObjectHealth[] {
  if (!last) return targets.map((t) => ({ ref: t.ref, subject: t.subject, status: 'Unknown', message: 'not observed before the wait was stopped' }));
  return last.filter((h) => h.status !== 'Current');
}

/** Waits until every target is gone; on timeout reports the ones still there (Terminating or not). */
export async function waitForTermination(client: ObjectClient, targets: readonly WaitTarget[], options: WaitOptions = defaultWaitOptions()): Promise<void> {
  // nothing to wait for is done, also once the caller's deadline has passed
  if (targets.length === 0) return;
  const deadline = Date.now() + options.timeoutMs;
  let pause = Math.min(options.initialIntervalMs, options.intervalMs);
  let last: ObjectHealth[] | undefined;
  // Stopped from outside (the caller's deadline): report what was last seen, not the aborted GET.
  const stopped = () => new WaitTimeoutError(options.timeoutMs, last ?? notReady(targets, undefined));
  for (;;) {
    if (options.signal?.aborted) throw stopped();
    const remaining: ObjectHealth[] = [];
    for (const t of targets) {
      let live;
      try {
        live = await client.getOptional(t.address);
      } catch (err) {
        if (options.signal?.aborted) throw stopped();
        throw err;
      }
      if (live) {
        remaining.push({
          ref: t.ref,
          subject: t.subject,
          status: live.metadata.deletionTimestamp ? 'Terminating' : 'Current',
          message: live.metadata.deletionTimestamp ? `deletion requested at ${live.metadata.deletionTimestamp}` : 'still present',
        });
      }
    }
    if (!remaining.length) return;
    last = remaining;
    const left = deadline - Date.now();
    if (left <= 0 || options.signal?.aborted) throw new WaitTimeoutError(options.timeoutMs, remaining);
    await sleep(Math.min(pause, left), options.signal);
    pause = Math.min(pause * 2, options.intervalMs);
  }
}

