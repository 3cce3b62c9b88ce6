import { Counter } from 'prom-client';
import type { MetricsRegistry } from '../metrics/metrics.module';

/** Why the hub refused an agent's message, closing its stream. */
export type RefusalReason = 'oversized' | 'rate';

/** Counts the agent messages the hub refused (each closed its stream) and the run reports it took. */
export class AgentStreamMetrics {
  readonly refused: Counter<'reason' | 'message'>;
  readonly reports: Counter<'outcome'>;

  constructor(registry: MetricsRegistry) {
    this.refused = new Counter({
      name: 'flotilla_agent_messages_refused_total',
      help: 'Agent stream messages refused, closing the stream: a field over its bound (oversized) or more messages than the stream\'s rate (rate), by message kind',
      labelNames: ['reason', 'message'],
      registers: [registry],
    });
    this.reports = new Counter({
      name: 'flotilla_agent_reports_total',
      help: 'Agent run reports taken, by outcome: stored, replayed (stored before), dropped (not the cluster\'s Target)',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }
}
