import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { Clock } from '../common/clock';
import { HUB_LOGGER } from '../logging/logging.module';
import { DeliveryWakeup } from '../cdevents/delivery-wakeup';
import { outboundKindOf } from '../cdevents/outbound-kind';
import { OutboxWriter } from '../cdevents/outbox-writer';
import { Coalescer, eachOnFailure } from '../common/coalescer';
import { type EventRow, HistoryRepository } from '../repositories/history.repository';
import { type Transaction, UnitOfWork } from '../repositories/unit-of-work';
import type { EventSink, HubEvent, RecordedEvent } from './hub-event';
import { EventsMetrics } from './events.metrics';

/** Deliveries in flight per sink before new events skip it (a stuck sink must not hold memory without bound). */
export const MAX_PENDING_PER_SINK = 1000;
/** How long shutdown waits for deliveries still in flight. */
const SHUTDOWN_GRACE_MS = 5000;
/** Rows of events recorded outside a transaction go together: those recorded while a write is under way go in the next one. */
const ROWS_WINDOW_MS = 0;
const MAX_ROWS = 500;

/**
 * The one way events leave the hub: a history row, a count in
 * flotilla_events_total, a delivery to every sink, and for the events that
 * are CDEvents a row of the outbox in the same transaction. Sinks run in the
 * background: a slow or failing sink never delays or fails the caller.
 */
@Injectable()
export class EventsService implements OnApplicationShutdown {
  private readonly sinks: EventSink[] = [];
  private readonly pending = new Map<EventSink, Set<Promise<void>>>();
  /** sinks whose last delivery failed: their next failures are counted, not logged again */
  private readonly failing = new Set<EventSink>();
  /** per sink; a field rather than a constant so a spec can reach the limit with a few events */
  maxPendingPerSink = MAX_PENDING_PER_SINK;
  /** a fleet's runs record their instance events at once: one insert for many rows */
  private readonly rows: Coalescer<EventRow, void>;

  constructor(
    history: HistoryRepository,
    private readonly metrics: EventsMetrics,
    private readonly clock: Clock,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
    private readonly uow: UnitOfWork,
    private readonly outbox: OutboxWriter,
    private readonly deliveryWakeup: DeliveryWakeup,
  ) {
    this.rows = new Coalescer(
      (rows) => eachOnFailure(async () => (await history.recordEvents(rows), rows.map(() => undefined)), rows, (row) => history.recordEvent(row)),
      { windowMs: ROWS_WINDOW_MS, maxItems: MAX_ROWS },
    );
  }

  addSink(sink: EventSink): void {
    this.sinks.push(sink);
    this.pending.set(sink, new Set());
  }

  /**
   * Records `event`. Inside a transaction (`tx`) the row is part of it, and
   * the event is counted and delivered only once the transaction commits.
   */
  async record(event: HubEvent, tx?: Transaction): Promise<void> {
    if (tx) return this.recordAll([event], tx);
    // a CDEvent goes to the outbox in the transaction of its history row, never one without the other
    if (outboundKindOf(event) || event.wave) return this.uow.transaction((own) => this.recordAll([event], own));
    const recorded: RecordedEvent = { ...event, time: this.clock.now() };
    await this.rows.add(rowOf(recorded));
    this.publish(recorded);
  }

  /**
   * Records events in `tx`, their rows in one statement (a batch of agent
   * reports records hundreds at once): counted and delivered once it commits.
   */
  async recordAll(events: readonly HubEvent[], tx: Transaction): Promise<void> {
    if (events.length === 0) return;
    const recorded: RecordedEvent[] = events.map((event) => ({ ...event, time: this.clock.now() }));
    await tx.history.recordEvents(recorded.map(rowOf));
    let outboxed = false;
    for (const r of recorded) {
      const cdevent = outboundKindOf(r);
      // a rollout wave's change may also go to the Project's chat webhook
      if ((cdevent || r.wave) && (await this.outbox.enqueue(cdevent, r, tx.cdevents))) outboxed = true;
    }
    if (outboxed) tx.afterCommit(() => this.deliveryWakeup.wake());
    tx.afterCommit(() => recorded.forEach((r) => this.publish(r)));
  }

  /** Resolves once every delivery started so far has ended (for shutdown and tests). */
  async flush(): Promise<void> {
    for (;;) {
      const all = [...this.pending.values()].flatMap((s) => [...s]);
      if (all.length === 0) return;
      await Promise.all(all);
    }
  }

  /** Gives deliveries in flight a grace period; a sink that hangs must not hold the hub's exit. */
  async onApplicationShutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), SHUTDOWN_GRACE_MS);
      timer.unref();
    });
    const outcome = await Promise.race([this.flush().then(() => 'flushed' as const), grace]);
    clearTimeout(timer);
    if (outcome === 'timeout') this.logger.warn({ pending: [...this.pending.values()].reduce((n, s) => n + s.size, 0) }, 'event sinks still delivering at shutdown; not waiting longer');
  }

  private publish(event: RecordedEvent): void {
    this.metrics.events.inc({ type: event.type, reason: event.reason });
    for (const sink of this.sinks) {
      const inFlight = this.pending.get(sink)!;
      if (inFlight.size >= this.maxPendingPerSink) {
        this.metrics.sinkDropped.inc({ sink: sink.name });
        continue;
      }
      const delivery = this.deliver(sink, event).finally(() => inFlight.delete(delivery));
      inFlight.add(delivery);
    }
  }

  private async deliver(sink: EventSink, event: RecordedEvent): Promise<void> {
    try {
      await sink.deliver(event);
      if (this.failing.delete(sink)) this.logger.info({ sink: sink.name }, 'event sink delivers again');
    } catch (err) {
      this.metrics.sinkFailures.inc({ sink: sink.name });
      if (!this.failing.has(sink)) {
        this.failing.add(sink);
        this.logger.warn({ sink: sink.name, reason: err instanceof Error ? err.message : String(err) }, 'event sink failed; further failures are only counted until it delivers again');
      }
    }
  }
}

/** The history row of a recorded event. */
function rowOf({ projectId, clusterName, type, reason, message, time }: RecordedEvent) {
  return { projectId, clusterName, type, reason, message, createdAt: time };
}
