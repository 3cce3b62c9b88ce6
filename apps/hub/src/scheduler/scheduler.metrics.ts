import { Counter, Gauge, Histogram } from 'prom-client';
import type { MetricsRegistry } from '../metrics/metrics.module';
import { INSTANCE_INFO_LABELS, instanceInfoLabels, type ReportInstance } from '@flotilla/engine';
import type { KubeRequestEvent } from './target-runner';

const INFO_LABELS = [
  ...INSTANCE_INFO_LABELS,
  // not in the RFC, whose controller serves one cluster; the hub serves many
  'cluster_name',
] as const;

type InfoLabels = Record<(typeof INFO_LABELS)[number], string>;

export interface InstanceContext {
  project: { name: string; namespace: string; source: string };
  cluster: string;
  revision: string;
}

/** The scheduler's metrics, on the hub's own registry. */
export class SchedulerMetrics {
  readonly instanceDuration: Histogram<'instance_name' | 'instance_namespace' | 'project_name' | 'project_namespace' | 'project_component' | 'cluster_name'>;
  readonly instanceInfo: Gauge<(typeof INFO_LABELS)[number]>;
  readonly reconciles: Counter<'result'>;
  readonly reconcileDuration: Histogram<'result'>;
  readonly kubeRequests: Counter<'code' | 'method' | 'path'>;
  readonly queueDepth: Gauge;
  readonly runsInFlight: Gauge;
  readonly leaseTakeovers: Counter;
  readonly leasesLost: Counter;
  readonly tagResolutions: Counter<'result'>;
  readonly ticks: Counter;
  readonly claims: Counter<'by'>;
  /** last info labels per instance, so a changed label set replaces the old series */
  private readonly infoSeries = new Map<string, InfoLabels>();

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.instanceDuration = new Histogram({
      name: 'timoni_instance_reconcile_duration_seconds',
      help: 'Duration of one Instance apply (or deletion) in seconds',
      labelNames: ['instance_name', 'instance_namespace', 'project_name', 'project_namespace', 'project_component', 'cluster_name'],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    });
    this.instanceInfo = new Gauge({ name: 'timoni_instance_info', help: 'Current state of an Instance of a Project (value 1)', labelNames: [...INFO_LABELS], registers });
    this.reconciles = new Counter({ name: 'flotilla_target_reconciles_total', help: 'Target reconciliations by result (success, failure)', labelNames: ['result'], registers });
    this.reconcileDuration = new Histogram({
      name: 'flotilla_target_reconcile_duration_seconds',
      help: 'Duration of whole Target runs in seconds',
      labelNames: ['result'],
      buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    });
    this.kubeRequests = new Counter({
      name: 'flotilla_kube_api_requests_total',
      help: 'Kubernetes API requests made by reconciles, by status code (0: no response), method and path template',
      labelNames: ['code', 'method', 'path'],
      registers,
    });
    this.queueDepth = new Gauge({ name: 'flotilla_scheduler_queue_depth', help: 'Targets due and not leased, at the last scheduler tick', registers });
    this.runsInFlight = new Gauge({ name: 'flotilla_scheduler_runs_in_flight', help: 'Target runs this replica is executing', registers });
    this.leaseTakeovers = new Counter({ name: 'flotilla_scheduler_lease_takeovers_total', help: 'Targets claimed after another replica let its lease expire', registers });
    this.leasesLost = new Counter({ name: 'flotilla_scheduler_leases_lost_total', help: 'Runs of this replica that lost their lease before writing a result', registers });
    this.ticks = new Counter({ name: 'flotilla_scheduler_ticks_total', help: 'Scheduler ticks that ran to the end (claims made or nothing due)', registers });
    this.claims = new Counter({ name: 'flotilla_scheduler_claims_total', help: 'Targets claimed to run, by who claimed them: a tick, or a new digest\'s advance (agent Targets of this replica)', labelNames: ['by'], registers });
    this.tagResolutions = new Counter({ name: 'flotilla_source_tag_resolutions_total', help: 'Registry tag resolutions by the source poller, by result', labelNames: ['result'], registers });
  }

  observeKubeRequest(e: KubeRequestEvent): void {
    this.kubeRequests.inc({ code: String(e.statusCode), method: e.method, path: e.pathTemplate });
  }

  observeRun(ok: boolean, seconds: number): void {
    const result = ok ? 'success' : 'failure';
    this.reconciles.inc({ result });
    this.reconcileDuration.observe({ result }, seconds);
  }

  observeInstance(ctx: InstanceContext, i: ReportInstance): void {
    const key = `${ctx.cluster}\u0000${ctx.project.name}\u0000${i.namespace}\u0000${i.name}`;
    const previous = this.infoSeries.get(key);
    if (previous) this.instanceInfo.remove(previous);
    const common = { instance_name: i.name, instance_namespace: i.namespace, project_name: ctx.project.name, project_namespace: ctx.project.namespace, project_component: i.component, cluster_name: ctx.cluster };
    this.instanceDuration.observe(common, i.durationMs / 1000);
    if (i.action === 'applied') {
      const labels: InfoLabels = { ...instanceInfoLabels({ ...ctx.project, revision: ctx.revision }, i), cluster_name: ctx.cluster };
      this.instanceInfo.set(labels, 1);
      this.infoSeries.set(key, labels);
    } else {
      this.infoSeries.delete(key);
    }
  }
}
