// Instance events as core/v1 Events in the cluster they happened in (push
// clusters; the hub's own identity). One of EventsService's sinks: it runs in
// the background, so a cluster that refuses or does not answer never holds
// back a reconcile. Connections are kept per cluster while events keep coming.
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

@Injectable()
export class ClusterEventSink implements EventSink, OnModuleInit, OnApplicationShutdown {
  readonly name = 'kubernetes';
  private readonly open = new Map<string, Open>();

  constructor(
    private readonly events: EventsService,
    private readonly clusters: ClustersRepository,
    private readonly projects: ProjectsRepository,
    private readonly credentials: CredentialsService,
    private readonly metrics: SchedulerMetrics,
  ) {}

  onModuleInit(): void {
    this.events.addSink(this);
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  async deliver(event: RecordedEvent): Promise<void> {
    if (!event.clusterName || !event.instance || !event.namespace) return;
    const [cluster, project] = await Promise.all([this.clusters.findByName(event.clusterName), this.projects.findById(event.projectId)]);
    if (!cluster || !project) return;
    const client = await this.client(cluster);
    if (!client) return;
    const body = instanceKubeEvent(
      { instance: { name: event.instance, namespace: event.namespace, component: event.component }, project: { name: project.name, namespace: project.namespace }, cluster: cluster.name, revision: event.revision },
      event,
      event.time,
    );
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
      const connection = openKubeConnection(credentials, (e) => this.metrics.observeKubeRequest(e));
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
