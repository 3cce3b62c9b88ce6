// The agent's metrics in its own registry: the design's per-instance metrics
// (timoni_instance_*), and controller-runtime's names for the controller,
// its work queue, API requests and leader election, so existing dashboards
// and alerts for Kubernetes controllers work unchanged.
import { INSTANCE_INFO_LABELS, instanceInfoLabels, type InstanceInfoLabels, type InstanceMetricsProject, type ReportInstance } from '@flotilla/engine';
import type { RequestEvent } from '@flotilla/kube';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ControllerObserver } from '../controller/project-controller';
import type { CdeventsObserver } from '../events/cdevents-emitter';


const CONTROLLER = 'project';
const QUEUE = 'project';
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export interface ProjectRef {
  name: string;
  namespace: string;
}

export class AgentMetrics {
  readonly registry = new Registry();
  private readonly instanceDuration = new Histogram({ name: 'timoni_instance_reconcile_duration_seconds', help: 'Duration of an instance apply, prune or deletion.', labelNames: INSTANCE_INFO_LABELS, buckets: SECONDS, registers: [this.registry] });
  private readonly instanceInfo = new Gauge({ name: 'timoni_instance_info', help: 'The current state of an instance of a Project (always 1).', labelNames: INSTANCE_INFO_LABELS, registers: [this.registry] });
  private readonly reconcileTotal = new Counter({ name: 'controller_runtime_reconcile_total', help: 'Reconciliations per controller and result.', labelNames: ['controller', 'result'], registers: [this.registry] });
  private readonly reconcileErrors = new Counter({ name: 'controller_runtime_reconcile_errors_total', help: 'Reconciliation errors per controller.', labelNames: ['controller'], registers: [this.registry] });
  private readonly reconcileTime = new Histogram({ name: 'controller_runtime_reconcile_time_seconds', help: 'Time per reconciliation per controller.', labelNames: ['controller'], buckets: SECONDS, registers: [this.registry] });
  private readonly maxConcurrent = new Gauge({ name: 'controller_runtime_max_concurrent_reconciles', help: 'Workers per controller.', labelNames: ['controller'], registers: [this.registry] });
  private readonly activeWorkers = new Gauge({ name: 'controller_runtime_active_workers', help: 'Workers busy per controller.', labelNames: ['controller'], registers: [this.registry] });
  private readonly queueDepth = new Gauge({ name: 'workqueue_depth', help: 'Keys waiting in the work queue.', labelNames: ['name'], registers: [this.registry] });
  private readonly queueAdds = new Counter({ name: 'workqueue_adds_total', help: 'Adds handled by the work queue.', labelNames: ['name'], registers: [this.registry] });
  private readonly queueRetries = new Counter({ name: 'workqueue_retries_total', help: 'Retries handled by the work queue.', labelNames: ['name'], registers: [this.registry] });
  private readonly queueLatency = new Histogram({ name: 'workqueue_queue_duration_seconds', help: 'Time a key waits in the queue before it is handled.', labelNames: ['name'], buckets: SECONDS, registers: [this.registry] });
  private readonly workDuration = new Histogram({ name: 'workqueue_work_duration_seconds', help: 'Time handling a key takes.', labelNames: ['name'], buckets: SECONDS, registers: [this.registry] });
  private readonly restRequests = new Counter({ name: 'rest_client_requests_total', help: 'Kubernetes API requests by status code, method and host.', labelNames: ['code', 'method', 'host'], registers: [this.registry] });
  private readonly restLatency = new Histogram({ name: 'rest_client_request_duration_seconds', help: 'Kubernetes API request latency by verb and host.', labelNames: ['verb', 'host'], buckets: SECONDS, registers: [this.registry] });
  private readonly leaderStatus = new Gauge({ name: 'leader_election_master_status', help: '1 while this replica leads, else 0.', labelNames: ['name'], registers: [this.registry] });
  private readonly cdeventsDeliveries = new Counter({ name: 'flotilla_agent_cdevents_deliveries_total', help: 'CDEvent delivery attempts to Project sinks, by result (delivered, retried, failed: given up after the last attempt).', labelNames: ['result'], registers: [this.registry] });
  private readonly cdeventsDropped = new Counter({ name: 'flotilla_agent_cdevents_dropped_total', help: 'CDEvents dropped unsent because their Project\'s outbox was full (the oldest go first).', registers: [this.registry] });
  private readonly cdeventsWriteErrors = new Counter({ name: 'flotilla_agent_cdevents_outbox_write_errors_total', help: 'Failed writes of a CDEvents outbox ConfigMap (each is written again).', registers: [this.registry] });
  private readonly cdeventsPending = new Gauge({ name: 'flotilla_agent_cdevents_outbox_events', help: 'CDEvents in the outboxes not delivered yet (the leader\'s count).', registers: [this.registry] });
  /** the info series set last per instance: one series each, though ready, version and revision change */
  private readonly infoSeries = new Map<string, InstanceInfoLabels>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  recordInstance(project: InstanceMetricsProject, instance: ReportInstance): void {
    const labels = instanceInfoLabels(project, instance);
    this.instanceDuration.observe(labels, instance.durationMs / 1000);
    const key = seriesKey(project, instance);
    const before = this.infoSeries.get(key);
    if (before) this.instanceInfo.remove(before);
    this.instanceInfo.set(labels, 1);
    this.infoSeries.set(key, labels);
  }

  forgetInstance(project: ProjectRef, instance: { name: string; namespace: string; component: string }): void {
    const key = seriesKey(project, instance);
    const labels = this.infoSeries.get(key);
    if (!labels) return;
    this.instanceInfo.remove(labels);
    this.instanceDuration.remove(labels);
    this.infoSeries.delete(key);
  }

  forgetProject(namespace: string, name: string): void {
    for (const labels of [...this.infoSeries.values()]) {
      if (labels.project_namespace === namespace && labels.project_name === name) {
        this.forgetInstance({ name, namespace }, { name: labels.instance_name, namespace: labels.instance_namespace, component: labels.project_component });
      }
    }
  }

  kubeRequest(host: string, e: RequestEvent): void {
    // client-go's label for a request that got no response
    this.restRequests.inc({ code: e.statusCode === 0 ? '<error>' : String(e.statusCode), method: e.method, host });
    this.restLatency.observe({ verb: e.method, host }, e.durationMs / 1000);
  }

  leader(lease: string, leading: boolean): void {
    this.leaderStatus.set({ name: lease }, leading ? 1 : 0);
  }

  controllerObserver(concurrency: number): ControllerObserver {
    this.maxConcurrent.set({ controller: CONTROLLER }, concurrency);
    this.activeWorkers.set({ controller: CONTROLLER }, 0);
    this.queueDepth.set({ name: QUEUE }, 0);
    return {
      queue: {
        depth: (n) => this.queueDepth.set({ name: QUEUE }, n),
        added: () => this.queueAdds.inc({ name: QUEUE }),
        retried: () => this.queueRetries.inc({ name: QUEUE }),
        latency: (ms) => this.queueLatency.observe({ name: QUEUE }, ms / 1000),
        workDuration: (ms) => this.workDuration.observe({ name: QUEUE }, ms / 1000),
      },
      reconciled: (result, ms) => {
        this.reconcileTotal.inc({ controller: CONTROLLER, result });
        if (result === 'error') this.reconcileErrors.inc({ controller: CONTROLLER });
        this.reconcileTime.observe({ controller: CONTROLLER }, ms / 1000);
      },
      activeWorkers: (n) => this.activeWorkers.set({ controller: CONTROLLER }, n),
    };
  }

  cdeventsObserver(): CdeventsObserver {
    return {
      attempt: (result) => this.cdeventsDeliveries.inc({ result }),
      dropped: (n) => this.cdeventsDropped.inc(n),
      outboxWriteFailed: () => this.cdeventsWriteErrors.inc(),
      pending: (n) => this.cdeventsPending.set(n),
    };
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

function seriesKey(project: ProjectRef, instance: { name: string; namespace: string; component: string }): string {
  return [project.namespace, project.name, instance.component, instance.namespace, instance.name].join('\u0000');
}
