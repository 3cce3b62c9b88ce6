// Instance events as core/v1 Events in the cluster they happened in (push
// clusters; the hub's own identity). One of EventsService's sinks: it runs in
// the background, so a cluster that refuses or does not answer never holds
// back a reconcile. While a run goes on, its events use what the run holds
// (its Project, its connection); other events read the cluster and Project
// and keep a connection per cluster while events keep coming.
import { EgressPolicy } from '@flotilla/egress';
import { instanceKubeEvent } from '@flotilla/engine';
import { ObjectClient, type ClusterConnection } from '@flotilla/kube';
import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { CredentialsService } from '../credentials/credentials.service';
import type { ClusterEntity } from '../database/entities';
import { EventsService } from '../events/events.service';
import type { EventSink, RecordedEvent } from '../events/hub-event';
import { ClustersRepository } from '../repositories/clusters.repository';
import { ProjectsRepository } from '../repositories/projects.repository';
import { openKubeConnection, pushConnection } from './push-connection';
import type { RunConnection } from './run-connection';
import { SchedulerMetrics } from './scheduler.metrics';

/** How long an unused connection stays open. */
const IDLE_MS = 30_000;

interface Open {
  connection: ClusterConnection;
  /** kept with the connection so its discovery is read once, not once per event */
  client: ObjectClient;
  /** the stored credentials it was opened with: a changed registration opens a new one */
  key: string;
  idle: NodeJS.Timeout | undefined;
}

/** What a run in progress lends its events. */
export interface RunScope {
  projectId: string;
  clusterName: string;
  project: { name: string; namespace: string };
  /** null: the hub does not reach this cluster itself (agent mode, no credentials), so nothing is delivered */
  kube: RunConnection | null;
}

@Injectable()
export class ClusterEventSink implements EventSink, OnModuleInit, OnApplicationShutdown {
  readonly name = 'kubernetes';
  private readonly open = new Map<string, Open>();
  private readonly runs = new Map<string, RunScope>();

  constructor(
    private readonly events: EventsService,
    private readonly clusters: ClustersRepository,
    private readonly projects: ProjectsRepository,
    private readonly credentials: CredentialsService,
    private readonly metrics: SchedulerMetrics,
    private readonly egress: EgressPolicy,
  ) {}

  onModuleInit(): void {
    this.events.addSink(this);
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  /**
   * Until the returned function is called, events of `scope`'s Project on its
   * cluster are delivered with what the run holds, without reading either back.
   */
  duringRun(scope: RunScope): () => void {
    const key = scopeKey(scope.projectId, scope.clusterName);
    this.runs.set(key, scope);
    return () => {
      if (this.runs.get(key) === scope) this.runs.delete(key);
    };
  }

  async deliver(event: RecordedEvent): Promise<void> {
    if (!event.clusterName || !event.instance || !event.namespace || event.inCluster) return;
    const instance = { name: event.instance, namespace: event.namespace };
    const run = this.runs.get(scopeKey(event.projectId, event.clusterName));
    if (run) {
      if (!run.kube?.open) return;
      // held before the first await: the run may end meanwhile, the connection stays until this is sent
      const release = run.kube.hold();
      try {
        await this.send(run.kube.client, event, instance, run.project, event.clusterName);
      } finally {
        release();
      }
      return;
    }
    const [cluster, project] = await Promise.all([this.clusters.findByName(event.clusterName), this.projects.findById(event.projectId)]);
    if (!cluster || !project) return;
    const client = await this.client(cluster);
    if (!client) return;
    await this.send(client, event, instance, project, cluster.name);
  }

  private async send(client: ObjectClient, event: RecordedEvent, instance: { name: string; namespace: string }, project: { name: string; namespace: string }, cluster: string): Promise<void> {
    const body = instanceKubeEvent({ instance: { ...instance, component: event.component }, project: { name: project.name, namespace: project.namespace }, cluster, revision: event.revision }, event, event.time);
    await client.apply(body, { dryRun: false, force: true, fieldManager: 'flotilla' });
  }

  /** Closes every connection (hub shutdown). */
  async close(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    for (const o of all) clearTimeout(o.idle);
    await Promise.allSettled(all.map((o) => o.connection.close()));
  }

  private async client(cluster: ClusterEntity): Promise<ObjectClient | null> {
    const key = String(cluster.updatedAt.getTime());
    let entry = this.open.get(cluster.id);
    if (entry && entry.key !== key) {
      this.forget(cluster.id, entry);
      entry = undefined;
    }
    if (!entry) {
      const credentials = await pushConnection(this.credentials, cluster);
      if (!credentials) return null;
      const connection = openKubeConnection(credentials, this.egress, (e) => this.metrics.observeKubeRequest(e));
      entry = { connection, client: new ObjectClient(connection), key, idle: undefined };
      this.open.set(cluster.id, entry);
    }
    const kept = entry;
    clearTimeout(kept.idle);
    kept.idle = setTimeout(() => this.forget(cluster.id, kept), IDLE_MS).unref();
    return kept.client;
  }

  private forget(clusterId: string, entry: Open): void {
    clearTimeout(entry.idle);
    if (this.open.get(clusterId) === entry) this.open.delete(clusterId);
    void entry.connection.close();
  }
}

const scopeKey = (projectId: string, clusterName: string) => `${projectId}\u0000${clusterName}`;
