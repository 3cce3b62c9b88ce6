import { Counter, Gauge, Histogram } from 'prom-client';
import type { MetricsRegistry } from '../metrics/metrics.module';
import { INSTANCE_INFO_LABELS, instanceInfoLabels, type ReportInstance } from '@flotilla/engine';

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

/** What every stored run counts, push or agent, on the hub's own registry. */
export class RunMetrics {
  readonly instanceDuration: Histogram<'instance_name' | 'instance_namespace' | 'project_name' | 'project_namespace' | 'project_component' | 'cluster_name'>;
  readonly instanceInfo: Gauge<(typeof INFO_LABELS)[number]>;
  readonly reconciles: Counter<'result'>;
  readonly reconcileDuration: Histogram<'result'>;
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
