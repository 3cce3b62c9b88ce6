// An informer-like loop over one kind: LIST, then WATCH from the list's resourceVersion,
// resuming after server timeouts and broken connections, relisting after 410 Gone.
// Only the caller's signal ends it; every problem goes to `handlers.error` and it keeps going.
import type { ClusterConnection } from './connection';
import { KubeApiError, KubeError, WatchEventError, WatchExpiredError, WatchHandlerError, type ApiStatus } from './errors';
import type { ObjectClient } from './object-client';
import type { KubeObject } from './types';
import { listWithVersion } from './watch-list';

export interface WatchTarget {
  apiVersion: string;
  kind: string;
  /** all namespaces when absent (or for cluster-scoped kinds) */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject;
}

export interface WatchHandlers {
  /** the full current set, after the first LIST and after every relist (diff it against your state) */
  synced(objects: KubeObject[]): void | Promise<void>;
  /** one change, in the server's order; the next is not read before this settles */
  event(event: WatchEvent): void | Promise<void>;
  /** every problem the loop recovers from (it never ends on one); must not throw */
  error?(err: Error): void;
}

export interface WatchBackoff {
  /** pause before re-watching after a healthy watch, and the first step after a failure */
  initialMs: number;
  maxMs: number;
  /** up to this fraction is added at random to each pause */
  jitter: number;
}

export interface WatchOptions {
  /** the only way to stop; watchObjects resolves once it has */
  signal: AbortSignal;
  /** server-side end of each watch request (default 300) */
  timeoutSeconds?: number;
  /** a watch sending no bytes this long is dropped and resumed (default timeoutSeconds + 30 s) */
  idleTimeoutMs?: number;
  /** longest event line (default the connection's 16 MiB stream default) */
  maxLineBytes?: number;
  /** LIST page size (default 500) */
  pageSize?: number;
  backoff?: Partial<WatchBackoff>;
  /** waits between attempts (specs pass one that records and returns at once); resolves early on abort */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** [0, 1) for the jitter */
  random?: () => number;
}

export const DEFAULT_WATCH_BACKOFF: WatchBackoff = { initialMs: 500, maxMs: 30_000, jitter: 0.2 };

/** The pause before the next attempt after `failures` consecutive unhealthy ones (0 after a healthy watch). */
export function watchBackoffDelay(b: WatchBackoff, failures: number, random: number): number {
  const base = Math.min(b.maxMs, b.initialMs * 2 ** Math.min(failures, 30));
  return Math.min(b.maxMs, Math.round(base * (1 + b.jitter * random)));
}

interface RawEvent {
  type?: string;
  object?: KubeObject & ApiStatus;
}

const sleepFor = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

export function describeWatchTarget(t: WatchTarget): string {
  const where = t.namespace ? ` in namespace ${t.namespace}` : '';
  const sel = [t.labelSelector && `labels ${t.labelSelector}`, t.fieldSelector && `fields ${t.fieldSelector}`].filter(Boolean).join(', ');
  return `${t.kind} (${t.apiVersion})${where}${sel ? ` [${sel}]` : ''}`;
}

/**
 * Lists and watches `target` until `options.signal` aborts. Kinds resolve through discovery
 * (custom resources too; an unknown kind is reported and retried, its CRD may come later).
 * The watch requests use `client.connection` with `options.signal` as their signal.
 */
export async function watchObjects(client: ObjectClient, target: WatchTarget, handlers: WatchHandlers, options: WatchOptions): Promise<void> {
  const { signal } = options;
  const timeoutSeconds = options.timeoutSeconds ?? 300;
  if (!(timeoutSeconds >= 1)) throw new RangeError(`timeoutSeconds must be at least 1 (got ${timeoutSeconds})`);
  const backoff = { ...DEFAULT_WATCH_BACKOFF, ...options.backoff };
  const sleep = options.sleep ?? sleepFor;
  const random = options.random ?? Math.random;
  const subject = describeWatchTarget(target);
  const conn: ClusterConnection = client.connection.withSignal(signal);
  const report = (err: unknown) => {
    try {
      handlers.error?.(err instanceof Error ? err : new KubeError(String(err)));
    } catch {
      // a throwing error handler must not end the loop
    }
  };

  /** undefined: the next attempt lists first */
  let resourceVersion: string | undefined;
  let failures = 0;
  while (!signal.aborted) {
    // healthy: the watch delivered something or the server ended it (timeoutSeconds)
    let healthy = false;
    try {
      const path = await client.collectionPathOf(target.apiVersion, target.kind, target.namespace);
      if (resourceVersion === undefined) {
        const list = await listWithVersion(conn, path, target, options.pageSize ?? 500, subject);
        if (signal.aborted) break;
        try {
          await handlers.synced(list.items);
        } catch (err) {
          throw new WatchHandlerError(subject, 'synced', { cause: err });
        }
        resourceVersion = list.resourceVersion;
      }
      const events = conn.stream<RawEvent>({
        method: 'GET',
        path,
        query: {
          watch: 1,
          resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
          labelSelector: target.labelSelector,
          fieldSelector: target.fieldSelector,
        },
        idleTimeoutMs: options.idleTimeoutMs ?? timeoutSeconds * 1000 + 30_000,
        maxLineBytes: options.maxLineBytes,
        subject: `${subject} watch`,
      });
      for await (const ev of events) {
        const obj = ev.object;
        if (ev.type === 'ERROR') {
          if (obj?.code === 410) throw new WatchExpiredError(subject, resourceVersion, { cause: new WatchEventError(subject, `ERROR event: ${obj.message ?? ''}`, obj) });
          throw new WatchEventError(subject, `ERROR event ${obj?.code ?? ''} ${obj?.reason ?? ''}: ${obj?.message ?? ''}`, obj);
        }
        const rv = obj?.metadata?.resourceVersion;
        if (!rv) throw new WatchEventError(subject, `${ev.type ?? 'untyped'} event without object.metadata.resourceVersion`);
        if (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED') {
          try {
            await handlers.event({ type: ev.type, object: obj as KubeObject });
          } catch (err) {
            throw new WatchHandlerError(subject, 'event', { cause: err });
          }
        } else if (ev.type !== 'BOOKMARK') {
          throw new WatchEventError(subject, `event of unknown type ${ev.type ?? '(none)'}`);
        }
        resourceVersion = rv;
        healthy = true;
      }
      healthy = true;
    } catch (err) {
      if (signal.aborted) break;
      if (err instanceof KubeApiError && err.statusCode === 410) {
        report(new WatchExpiredError(subject, resourceVersion, { cause: err }));
        resourceVersion = undefined;
      } else {
        if (err instanceof WatchExpiredError || err instanceof WatchHandlerError) resourceVersion = undefined;
        report(err);
      }
    }
    failures = healthy ? 0 : failures + 1;
    if (signal.aborted) break;
    await sleep(watchBackoffDelay(backoff, failures, random()), signal);
  }
}
