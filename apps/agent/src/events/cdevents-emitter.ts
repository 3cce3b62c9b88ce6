// CDEvents from the standalone agent to the sinks Projects name: the same
// events as the hub's (libs/cdevents), kept in an outbox per Project in the
// cluster (OutboxStore) and sent in order with retries, so a restart, a
// crash or a new leader delivers what was not delivered yet, with the ids
// it had. The outbox is bounded: past the bound the oldest events go, and
// the drop is counted and logged.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { buildCdevent, type DeliveryBackoff, type EventFacts, postCdevent, retryDelayMs, type SinkPostOptions, type SinkTarget } from '@flotilla/cdevents';
import { ForbiddenError } from '@flotilla/kube';
import type { Logger } from '../logging/logger';
import { OUTBOX_MAX_BYTES, serialiseEntries, type OutboxEntry, type OutboxStore, type SinkHeaderRef } from './cdevents-outbox-store';

/** What happens to the events, for metrics. */
export interface CdeventsObserver {
  /** one attempt: delivered, retried (will be tried again) or failed (given up after the last attempt) */
  attempt(result: 'delivered' | 'retried' | 'failed'): void;
  /** events dropped unsent because the Project's outbox was full */
  dropped(count: number): void;
  /** a write of an outbox to the cluster failed (it is written again) */
  outboxWriteFailed(): void;
  /** events waiting, all Projects */
  pending(count: number): void;
}

export interface AgentCdeventsOptions {
  /** the producer, `/flotilla/agent/<cluster>` */
  source: string;
  backoff: DeliveryBackoff;
  post: SinkPostOptions;
  /** events kept per Project before the oldest are dropped (the outbox's bytes are bounded too) */
  maxQueued: number;
  log: Logger;
  /** where outboxes outlive the process; absent: in memory only */
  store?: OutboxStore;
  /** the value of a sink header, read from the Project's Secret at each attempt */
  readHeader?: (projectNamespace: string, ref: SinkHeaderRef) => Promise<string>;
  observer?: CdeventsObserver;
  /** wait before writing a failed outbox write again */
  rewriteAfterMs?: number;
}

/** Where an event goes: the sink URL and the header the Project names. */
export interface SinkRef {
  sink: string;
  header?: SinkHeaderRef;
}

interface ProjectOutbox {
  key: string;
  entries: OutboxEntry[];
  attempts: number;
  timer?: NodeJS.Timeout;
  sending: boolean;
  /** the write not started yet: later changes ride on it */
  queuedWrite?: Promise<void>;
  lastWrite: Promise<void>;
}

export class AgentCdeventsEmitter {
  private readonly outboxes = new Map<string, ProjectOutbox>();
  /** delivering and accepting events: between resume() and the end of its signal */
  private active = false;
  private stopped = false;
  /** the store in use (none once it proved forbidden) */
  private store: OutboxStore | undefined;

  constructor(private readonly options: AgentCdeventsOptions) {}

  /**
   * Reads the stored outboxes and delivers them; events emitted from now on
   * join them. Call before the controller runs (it emits); the signal's end
   * (no longer leading, stopping) stops delivery and forgets the queues, which
   * stay stored for whoever leads next.
   */
  async resume(signal: AbortSignal): Promise<void> {
    if (this.stopped || signal.aborted) return;
    this.store = this.options.store;
    const store = this.store;
    if (store) {
      for (let attempt = 1; ; attempt++) {
        try {
          const stored = await store.loadAll((name, why) => this.options.log.warn('CDEvents outbox unreadable; left as it is', { configMap: `${store.namespace}/${name}`, error: why }));
          for (const o of stored) this.outboxes.set(o.project, this.newOutbox(o.project, o.entries));
          if (stored.length > 0) this.options.log.info('CDEvents outboxes loaded', { projects: stored.length, events: stored.reduce((n, o) => n + o.entries.length, 0) });
          break;
        } catch (err) {
          if (err instanceof ForbiddenError) {
            // an install without the outbox Role: reconciles go on, events are kept in memory only
            this.options.log.error('CDEvents outboxes cannot be read (forbidden): kept in memory only (grant the outbox Role in deploy/agent/rbac.yaml and restart)', { namespace: store.namespace, error: err.message });
            this.store = undefined;
            break;
          }
          this.options.log.warn('CDEvents outboxes not read yet; retrying', { error: err instanceof Error ? err.message : String(err), attempt });
          await delay(Math.min(30_000, 500 * 2 ** attempt), undefined, { signal }).catch(() => undefined);
          if (signal.aborted || this.stopped) return;
        }
      }
    }
    if (signal.aborted || this.stopped) return this.suspend();
    this.active = true;
    signal.addEventListener('abort', () => this.suspend(), { once: true });
    this.observePending();
    for (const o of this.outboxes.values()) this.pump(o);
  }

  /**
   * Puts an event in the Project `key`'s outbox; resolves once the outbox
   * is written (write it before the status that reports what caused the
   * event). Never waits for the sink; a failed write is logged and retried.
   */
  emit(key: string, target: SinkRef, facts: Omit<EventFacts, 'id' | 'time' | 'source'>): Promise<void> {
    if (!this.active || this.stopped) return Promise.resolve();
    const event = buildCdevent({ ...facts, id: randomUUID(), time: new Date(), source: this.options.source });
    let o = this.outboxes.get(key);
    if (!o) {
      o = this.newOutbox(key, []);
      this.outboxes.set(key, o);
    }
    o.entries.push({ sink: target.sink, ...(target.header ? { header: target.header } : {}), event });
    this.bound(o);
    this.observePending();
    const written = this.write(o);
    this.pump(o);
    return written;
  }

  /** Events not delivered yet (all Projects). */
  pending(): number {
    return [...this.outboxes.values()].reduce((n, o) => n + o.entries.length, 0);
  }

  /** Stops for good (shutdown): waits for the writes under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    const writes = [...this.outboxes.values()].map((o) => o.lastWrite);
    this.suspend();
    await Promise.allSettled(writes);
  }

  private suspend(): void {
    this.active = false;
    for (const o of this.outboxes.values()) if (o.timer) clearTimeout(o.timer);
    this.outboxes.clear();
  }

  private newOutbox(key: string, entries: OutboxEntry[]): ProjectOutbox {
    return { key, entries, attempts: 0, sending: false, lastWrite: Promise.resolve() };
  }

  /** Drops the oldest events past the count or byte bound (the event in flight stays, if it is among them it is sent once more). */
  private bound(o: ProjectOutbox): void {
    let dropped = 0;
    while (o.entries.length > 1 && (o.entries.length > this.options.maxQueued || serialiseEntries(o.entries).length > OUTBOX_MAX_BYTES)) {
      o.entries.shift();
      dropped++;
    }
    if (dropped > 0) {
      o.attempts = 0;
      this.options.observer?.dropped(dropped);
      this.options.log.warn('CDEvents dropped: the Project\'s outbox is full (the oldest go first)', { project: o.key, dropped, kept: o.entries.length, maxEvents: this.options.maxQueued, maxBytes: OUTBOX_MAX_BYTES });
    }
  }

  /** Writes the outbox as it is when the write starts; writes run one at a time per Project and coalesce. */
  private write(o: ProjectOutbox): Promise<void> {
    const store = this.store;
    if (!store) {
      if (o.entries.length === 0 && this.outboxes.get(o.key) === o) this.outboxes.delete(o.key);
      return Promise.resolve();
    }
    if (o.queuedWrite) return o.queuedWrite;
    const next = o.lastWrite.then(async () => {
      o.queuedWrite = undefined;
      if (this.outboxes.get(o.key) !== o) return;
      try {
        await store.save(o.key, o.entries);
        // an empty outbox is gone from the cluster: forget it here too, unless something came meanwhile
        if (o.entries.length === 0 && !o.queuedWrite && !o.sending) this.outboxes.delete(o.key);
      } catch (err) {
        this.options.observer?.outboxWriteFailed();
        this.options.log.warn('CDEvents outbox not written; writing it again shortly', { project: o.key, error: err instanceof Error ? err.message : String(err) });
        setTimeout(() => {
          if (this.outboxes.get(o.key) === o) void this.write(o);
        }, this.options.rewriteAfterMs ?? 5_000).unref();
      }
    });
    o.queuedWrite = next;
    o.lastWrite = next;
    return next;
  }

  private observePending(): void {
    this.options.observer?.pending(this.pending());
  }

  private current(o: ProjectOutbox): boolean {
    return this.active && !this.stopped && this.outboxes.get(o.key) === o;
  }

  private pump(o: ProjectOutbox): void {
    if (o.sending || o.timer || !this.current(o) || o.entries.length === 0) return;
    o.sending = true;
    const entry = o.entries[0];
    void this.send(o.key, entry).then(
      () => {
        o.sending = false;
        this.options.observer?.attempt('delivered');
        this.settle(o, entry);
      },
      (err: unknown) => {
        o.sending = false;
        if (!this.current(o)) return;
        o.attempts++;
        const message = err instanceof Error ? err.message : String(err);
        if (o.attempts >= this.options.backoff.maxAttempts) {
          this.options.observer?.attempt('failed');
          this.options.log.warn('CDEvent delivery failed for good; the next event goes on', { project: o.key, event: entry.event.context.id, type: entry.event.context.type, attempts: o.attempts, error: message });
          this.settle(o, entry);
          return;
        }
        this.options.observer?.attempt('retried');
        if (o.attempts === 1) this.options.log.warn('CDEvent delivery failed; retrying with backoff', { project: o.key, event: entry.event.context.id, error: message });
        o.timer = setTimeout(() => {
          o.timer = undefined;
          this.pump(o);
        }, retryDelayMs(this.options.backoff, o.attempts));
        o.timer.unref();
      },
    );
  }

  /** The entry is done with (delivered or given up): out of the outbox, which is written, and on to the next. */
  private settle(o: ProjectOutbox, entry: OutboxEntry): void {
    if (!this.current(o)) return;
    const i = o.entries.indexOf(entry);
    if (i >= 0) o.entries.splice(i, 1);
    o.attempts = 0;
    this.observePending();
    void this.write(o);
    this.pump(o);
  }

  private async send(key: string, entry: OutboxEntry): Promise<void> {
    const target: SinkTarget = { url: entry.sink };
    if (entry.header) {
      if (!this.options.readHeader) throw new Error('a sink header is named but the agent cannot read Secrets');
      target.header = { name: entry.header.name, value: await this.options.readHeader(key.split('/')[0], entry.header) };
    }
    await postCdevent(target, entry.event, this.options.post);
  }
}
