// CDEvents from the standalone agent to the sink a Project names: the same
// events as the hub's (libs/cdevents), queued in memory per Project and sent
// in order with retries. Without a database they do not outlive the process:
// a restart loses what was not delivered yet (the hub's outbox keeps them).
import { randomUUID } from 'node:crypto';
import { buildCdevent, type CDEvent, type DeliveryBackoff, type EventFacts, postCdevent, retryDelayMs, type SinkPostOptions } from '@flotilla/cdevents';
import type { Logger } from '../logging/logger';

interface ProjectQueue {
  sink: string;
  events: CDEvent[];
  attempts: number;
  timer?: NodeJS.Timeout;
  sending: boolean;
}

export interface AgentCdeventsOptions {
  /** the producer, `/flotilla/agent/<cluster>` */
  source: string;
  backoff: DeliveryBackoff;
  post: SinkPostOptions;
  /** events queued per Project before the oldest are dropped */
  maxQueued: number;
  log: Logger;
}

export class AgentCdeventsEmitter {
  private readonly queues = new Map<string, ProjectQueue>();
  private stopped = false;

  constructor(private readonly options: AgentCdeventsOptions) {}

  /** Queues the event for the Project `key`'s sink; never waits for it. */
  emit(key: string, sink: string, facts: Omit<EventFacts, 'id' | 'time' | 'source'>): void {
    if (this.stopped) return;
    const event = buildCdevent({ ...facts, id: randomUUID(), time: new Date(), source: this.options.source });
    let q = this.queues.get(key);
    if (!q || q.sink !== sink) {
      if (q?.timer) clearTimeout(q.timer);
      q = { sink, events: [], attempts: 0, sending: false };
      this.queues.set(key, q);
    }
    q.events.push(event);
    if (q.events.length > this.options.maxQueued) {
      q.events.shift();
      this.options.log.warn('CDEvent dropped: too many queued for the sink', { project: key, sink });
    }
    this.pump(key, q);
  }

  /** Events not delivered yet, for tests and metrics. */
  pending(): number {
    return [...this.queues.values()].reduce((n, q) => n + q.events.length, 0);
  }

  stop(): void {
    this.stopped = true;
    for (const q of this.queues.values()) if (q.timer) clearTimeout(q.timer);
  }

  private pump(key: string, q: ProjectQueue): void {
    if (q.sending || q.timer || this.stopped || q.events.length === 0) return;
    q.sending = true;
    const event = q.events[0];
    postCdevent({ url: q.sink }, event, this.options.post).then(
      () => {
        q.sending = false;
        q.events.shift();
        q.attempts = 0;
        this.pump(key, q);
      },
      (err: unknown) => {
        q.sending = false;
        q.attempts++;
        const message = err instanceof Error ? err.message : String(err);
        if (q.attempts >= this.options.backoff.maxAttempts) {
          this.options.log.warn('CDEvent delivery failed for good; the next event goes on', { project: key, event: event.context.id, type: event.context.type, attempts: q.attempts, error: message });
          q.events.shift();
          q.attempts = 0;
          this.pump(key, q);
          return;
        }
        if (q.attempts === 1) this.options.log.warn('CDEvent delivery failed; retrying with backoff', { project: key, event: event.context.id, error: message });
        q.timer = setTimeout(() => {
          q.timer = undefined;
          this.pump(key, q);
        }, retryDelayMs(this.options.backoff, q.attempts));
        q.timer.unref();
      },
    );
  }
}
