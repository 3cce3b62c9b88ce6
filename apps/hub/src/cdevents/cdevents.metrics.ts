import { Counter, Gauge } from 'prom-client';
import type { MetricsRegistry } from '../metrics/metrics.module';

/** CDEvents in and out: requests to the receiver, delivery attempts, and what waits or gave up in the outbox. */
export class CdeventsMetrics {
  readonly received: Counter<'outcome'>;
  readonly deliveries: Counter<'result'>;
  readonly outbox: Gauge<'state'>;

  constructor(registry: MetricsRegistry) {
    this.received = new Counter({
      name: 'flotilla_cdevents_received_total',
      help: 'Requests to the CDEvents receiver, by outcome (accepted, duplicate, unauthorized, rejected, error)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.deliveries = new Counter({
      name: 'flotilla_cdevents_deliveries_total',
      help: 'CDEvent delivery attempts to Project sinks, by result (delivered, retried, failed: given up after the last attempt)',
      labelNames: ['result'],
      registers: [registry],
    });
    this.outbox = new Gauge({
      name: 'flotilla_cdevents_outbox_events',
      help: 'CDEvents in the outbox not delivered, by state (pending, failed), as this replica last counted them',
      labelNames: ['state'],
      registers: [registry],
    });
  }
}
