import { Counter, Gauge } from 'prom-client';
import type { MetricsRegistry } from '../metrics/metrics.module';
import type { KubeRequestEvent } from './target-runner';

/** The push scheduler's metrics, on the hub's own registry (run and instance metrics: RunMetrics). */
export class SchedulerMetrics {
  readonly kubeRequests: Counter<'code' | 'method' | 'path'>;
  readonly queueDepth: Gauge;
  readonly runsInFlight: Gauge;
  readonly leaseTakeovers: Counter;
  readonly leasesLost: Counter;
  readonly tagResolutions: Counter<'result'>;
  readonly ticks: Counter;
  readonly claims: Counter<'by'>;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.kubeRequests = new Counter({
      name: 'flotilla_kube_api_requests_total',
      help: 'Kubernetes API requests made by reconciles, by status code (0: no response), method and path template',
      labelNames: ['code', 'method', 'path'],
      registers,
    });
    this.queueDepth = new Gauge({ name: 'flotilla_scheduler_queue_depth', help: 'Push Targets due and not leased, at the last scheduler tick', registers });
    this.runsInFlight = new Gauge({ name: 'flotilla_scheduler_runs_in_flight', help: 'Target runs this replica is executing', registers });
    this.leaseTakeovers = new Counter({ name: 'flotilla_scheduler_lease_takeovers_total', help: 'Targets claimed after another replica let its lease expire', registers });
    this.leasesLost = new Counter({ name: 'flotilla_scheduler_leases_lost_total', help: 'Runs of this replica that lost their lease before writing a result', registers });
    this.ticks = new Counter({ name: 'flotilla_scheduler_ticks_total', help: 'Scheduler ticks that ran to the end (claims made or nothing due)', registers });
    this.claims = new Counter({ name: 'flotilla_scheduler_claims_total', help: 'Push Targets claimed to run', labelNames: ['by'], registers });
    this.tagResolutions = new Counter({ name: 'flotilla_source_tag_resolutions_total', help: 'Registry tag resolutions by the source poller, by result', labelNames: ['result'], registers });
  }

  observeKubeRequest(e: KubeRequestEvent): void {
    this.kubeRequests.inc({ code: String(e.statusCode), method: e.method, path: e.pathTemplate });
  }
}
