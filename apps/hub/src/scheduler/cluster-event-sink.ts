// Instance events as core/v1 Events in the cluster they happened in (push
// clusters; the hub's own identity). One of EventsService's sinks: it runs in
// the background, so a cluster that refuses or does not answer never holds
// back a reconcile. While a run goes on, its events use what the run holds
// (its Project, its connection); other events read the cluster and Project
// and use the cluster's connection from PushConnections.
import { instanceKubeEvent } from '@flotilla/engine';
import { ObjectClient, type ClusterConnection } from '@flotilla/kube';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CredentialsService } from '../credentials/credentials.service';
import { EventsService } from '../events/events.service';
import type { EventSink, RecordedEvent } from '../events/hub-event';
import { ClustersRepository } from '../repositories/clusters.repository';
import { ProjectsRepository } from '../repositories/projects.repository';
import { pushConnection } from './push-connection';
import { PushConnections } from './push-connections';
import type { RunConnection } from './run-connection';

/** What a run in progress lends its events. */
export interface RunScope {
  projectId: string;
  clusterName: string;
  project: { name: string; namespace: string };
  /** null: the hub does not reach this cluster itself (agent mode, no credentials), so nothing is delivered */
  kube: RunConnection | null;
}

@Injectable()
export class ClusterEventSink implements EventSink, OnModuleInit {
  readonly name = 'kubernetes';
  private readonly runs = new Map<string, RunScope>();
  /** one client per connection, so a cluster's discovery is read once while its connection lives, not once per event */
  private readonly clients = new WeakMap<ClusterConnection, ObjectClient>();

  constructor(
    private readonly events: EventsService,
    private readonly clusters: ClustersRepository,
    private readonly projects: ProjectsRepository,
    private readonly credentials: CredentialsService,
    private readonly connections: PushConnections,
  ) {}

  onModuleInit(): void {
    this.events.addSink(this);
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
    const credentials = await pushConnection(this.credentials, cluster);
    if (!credentials) return;
    const lease = this.connections.lease(cluster.id, credentials);
    try {
      await this.send(this.clientOf(lease.connection), event, instance, project, cluster.name);
    } finally {
      lease.release();
    }
  }

  private async send(client: ObjectClient, event: RecordedEvent, instance: { name: string; namespace: string }, project: { name: string; namespace: string }, cluster: string): Promise<void> {
    const body = instanceKubeEvent({ instance: { ...instance, component: event.component }, project: { name: project.name, namespace: project.namespace }, cluster, revision: event.revision }, event, event.time);
    await client.apply(body, { dryRun: false, force: true, fieldManager: 'flotilla' });
  }

  private clientOf(connection: ClusterConnection): ObjectClient {
    let client = this.clients.get(connection);
    if (!client) {
      client = new ObjectClient(connection);
      this.clients.set(connection, client);
    }
    return client;
  }
}

const scopeKey = (projectId: string, clusterName: string) => `${projectId}\u0000${clusterName}`;
