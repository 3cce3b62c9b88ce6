import { Counter } from 'prom-client';
import type { MetricsRegistry } from '../metrics/metrics.module';

/** Counters of events leaving the hub and of sink deliveries that failed or were dropped. */
export class EventsMetrics {
  readonly events: Counter<'type' | 'reason'>;
  readonly sinkFailures: Counter<'sink'>;
  readonly sinkDropped: Counter<'sink'>;

  constructor(registry: MetricsRegistry) {
    this.events = new Counter({
      name: 'flotilla_events_total',
      help: 'Events recorded by the hub, by type and reason',
      labelNames: ['type', 'reason'],
      registers: [registry],
    });
    this.sinkFailures = new Counter({
      name: 'flotilla_event_sink_failures_total',
      help: 'Event deliveries a sink failed, by sink',
      labelNames: ['sink'],
      registers: [registry],
    });
    this.sinkDropped = new Counter({
      name: 'flotilla_event_sink_dropped_total',
      help: 'Events not handed to a sink because too many deliveries were still in flight, by sink',
      labelNames: ['sink'],
      registers: [registry],
    });
  }
}
