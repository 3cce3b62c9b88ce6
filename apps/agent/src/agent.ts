// The agent process, wired: one connection with the agent's own identity,
// the engine runtime, the Project controller (behind a Lease when several
// replicas run), Events, metrics and the probe endpoints.
import { FLOTILLA_RELEASE } from '@flotilla/release';
import { EgressPolicy, egressFetch } from '@flotilla/egress';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { defaultBackoffOptions, EngineRuntime } from '@flotilla/engine';
import { ClusterConnection, credentialsFromKubeconfig, inClusterCredentials, LeaderElector, ResourceManager, type ClusterCredentials } from '@flotilla/kube';
import type { AgentConfig } from './config/agent-config';
import { ProjectController } from './controller/project-controller';
import { AssignmentWriter } from './hub/assignment-writer';
import { DiffAnswerer } from './hub/diff-answerer';
import { HubLink } from './hub/hub-link';
import { IdentityStore } from './hub/identity-store';
import { SelfUpgrade } from './hub/self-upgrade';
import { ProjectReconciler } from './controller/project-reconciler';
import { EventRecorder } from './events/event-recorder';
import { startCdeventsReceiver } from './events/cdevents-receiver';
import { AgentCdeventsEmitter } from './events/cdevents-emitter';
import { OutboxStore } from './events/cdevents-outbox-store';
import { sinkHeaderReader } from './events/sink-header-read';
import { defaultDeliveryBackoff, defaultSinkPostOptions } from '@flotilla/cdevents';
import { startProbeServer, type ProbeServer } from './http/probe-server';
import type { Logger } from './logging/logger';
import { AgentMetrics } from './metrics/agent-metrics';

/** the release this agent reports to the hub: Flotilla's */
export const AGENT_VERSION = FLOTILLA_RELEASE;

export interface RunningAgent {
  /** where /metrics, /healthz and /readyz answer */
  url: string;
  /** resolves when the agent has stopped */
  stopped: Promise<void>;
  stop(): Promise<void>;
}

function clusterCredentials(config: AgentConfig): { credentials: ClusterCredentials; namespace: string | null } {
  if (config.kubeconfig) {
    let text: string;
    try {
      text = readFileSync(config.kubeconfig, 'utf8');
    } catch (err) {
      throw new Error(`kubeconfig ${config.kubeconfig} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
    }
    const { credentials } = credentialsFromKubeconfig(text, { ...(config.context ? { context: config.context } : {}), allowFiles: { baseDir: dirname(config.kubeconfig) } });
    return { credentials, namespace: null };
  }
  const inCluster = inClusterCredentials();
  return { credentials: inCluster.credentials, namespace: inCluster.namespace };
}

export async function startAgent(config: AgentConfig, log: Logger): Promise<RunningAgent> {
  const { credentials, namespace: podNamespace } = clusterCredentials(config);
  const metrics = new AgentMetrics();
  const host = new URL(credentials.server).host;
  const connection = ClusterConnection.create(credentials, {
    qps: config.kubeQps,
    burst: config.kubeBurst,
    userAgent: `flotilla-agent/${AGENT_VERSION}`,
    onRequest: (e) => metrics.kubeRequest(host, e),
  });
  const manager = new ResourceManager(connection);
  const version = await manager.serverVersion();
  log.info('connected to the API server', { server: credentials.server, version });

  // registries, token realms and sinks are named by Projects: checked on the address connected to
  const net = egressFetch(new EgressPolicy(config.egress));
  const runtime = EngineRuntime.create({
    cacheDir: config.cacheDir,
    registry: { fetch: net.fetch },
    cue: config.cue,
    onCueStarted: (cue) => {
      const pool = { poolSize: config.cue.poolSize, workerMemoryMiB: Math.round(config.cue.memoryLimitBytes / 1048576) };
      if (cue.fallbackReason) log.warn('CUE runs on WebAssembly, slower and larger: the native helper is unavailable', { reason: cue.fallbackReason, ...pool });
      else log.info('CUE engine started', { runtime: cue.runtime, startMs: Math.round(cue.startMs), ...pool });
    },
  });
  const events = new EventRecorder(connection, {
    maxPending: 1000,
    onError: (err, event) => log.warn('event not recorded', { event: event.metadata.name, error: err instanceof Error ? err.message : String(err) }),
  });
  // the Projects' own sinks: outboxes kept in the cluster, retried as the hub's
  const outboxNamespace = config.cdevents.outboxNamespace;
  if (!outboxNamespace) log.warn('CDEvents are kept in memory only (no --cdevents-outbox-namespace outside a pod): a restart loses the undelivered');
  const cdevents = new AgentCdeventsEmitter({
    source: `/flotilla/agent/${encodeURIComponent(config.clusterName)}`,
    backoff: { ...defaultDeliveryBackoff(), initialMs: config.cdevents.retryInitialMs, maxMs: config.cdevents.retryMaxMs, maxAttempts: config.cdevents.maxAttempts },
    post: { ...defaultSinkPostOptions(), fetch: net.fetch },
    maxQueued: config.cdevents.maxQueued,
    log,
    ...(outboxNamespace ? { store: new OutboxStore(manager.client, outboxNamespace) } : {}),
    readHeader: sinkHeaderReader(manager.client),
    observer: metrics.cdeventsObserver(),
  });
  const reconciler = new ProjectReconciler(
    {
      pollIntervalMs: config.pollIntervalMs,
      reconcileIntervalMs: config.reconcileIntervalMs,
      healthRecheckMs: config.healthRecheckMs,
      backoff: { ...defaultBackoffOptions(), initialMs: config.retryInitialMs, maxMs: config.retryMaxMs },
      // no kubeVersion: each run reads /version, so a cluster upgrade is seen without a restart
      cluster: { name: config.clusterName, group: config.clusterGroup },
      owner: config.owner,
      identity: config.identity,
    },
    { runtime, manager, events, metrics, log, cdevents, onRun: (project, report) => hubLink?.reportRun(project, report) },
  );
  const writer = new AssignmentWriter(manager.client, log);
  const hubLink = config.hub
    ? new HubLink(
        {
          address: config.hub.address,
          caPem: config.hub.caPem,
          bootstrapToken: () => config.hub?.bootstrapToken,
          agentVersion: AGENT_VERSION,
          kubeVersion: version,
          reportBuffer: config.hub.reportBuffer,
          heartbeatMs: config.hub.heartbeatMs,
          reconnect: { initialMs: 500, maxMs: config.hub.reconnectMaxMs },
        },
        new IdentityStore(manager.client, config.hub.identitySecret.namespace, config.hub.identitySecret.name),
        writer,
        new DiffAnswerer({ runtime, manager, cluster: { name: config.clusterName, group: config.clusterGroup }, owner: config.owner, projectOf: (id) => writer.find(id) }),
        log,
        new SelfUpgrade(manager.client, config.hub.selfDeployment, log),
      )
    : undefined;
  const controller = new ProjectController({
    client: manager.client,
    reconciler,
    concurrency: config.concurrency,
    namespace: config.watchNamespace,
    log,
    observer: metrics.controllerObserver(config.concurrency),
  });

  const abort = new AbortController();
  let leading = !config.leaderElect;
  const probe: ProbeServer = await startProbeServer({
    host: config.httpHost,
    port: config.httpPort,
    metrics: () => metrics.render(),
    healthy: () => true as const,
    // a standby replica is ready (it serves metrics and waits); the leader once its Projects are listed
    ready: () => (!leading || controller.synced ? true : 'projects not listed yet'),
  });
  log.info('probe server started', { url: probe.url, identity: config.identity, leaderElect: config.leaderElect });
  // every replica receives; only the leader's controller knows Projects, so a standby's answer is 422 (no Project)
  const receiver = config.events ? await startCdeventsReceiver(config.events, controller, log) : undefined;
  if (receiver) log.info('CDEvents receiver started', { url: receiver.url });

  const runController = async (signal: AbortSignal) => {
    reconciler.resetSchedules();
    // the stored outboxes first: the controller's events join them, in order
    await cdevents.resume(signal);
    // the leader alone talks to the hub: one stream per cluster
    await Promise.all([controller.run(signal), hubLink?.run(signal)]);
  };
  let running: Promise<void>;
  if (config.leaderElect) {
    const leaseNamespace = config.leaderElection.namespace ?? podNamespace;
    if (!leaseNamespace) throw new Error('leader election needs --leader-election-namespace outside a pod');
    const elector = new LeaderElector({
      connection,
      namespace: leaseNamespace,
      name: config.leaderElection.name,
      identity: config.identity,
      leaseDurationMs: config.leaderElection.leaseDurationMs,
      renewDeadlineMs: config.leaderElection.renewDeadlineMs,
      retryPeriodMs: config.leaderElection.retryPeriodMs,
      onStartedLeading: async (signal) => {
        leading = true;
        metrics.leader(config.leaderElection.name, true);
        log.info('became leader', { lease: `${leaseNamespace}/${config.leaderElection.name}` });
        await runController(signal);
      },
      onStoppedLeading: () => {
        leading = false;
        metrics.leader(config.leaderElection.name, false);
        log.info('stopped leading', { lease: `${leaseNamespace}/${config.leaderElection.name}` });
      },
      onNewLeader: (identity) => log.info('leader observed', { leader: identity }),
      onError: (err) => log.warn('leader election', { error: err.message }),
    });
    metrics.leader(config.leaderElection.name, false);
    running = elector.run(abort.signal);
  } else {
    running = runController(abort.signal);
  }

  const stopped = running.then(async () => {
    await receiver?.close();
    await cdevents.stop();
    await events.flush();
    await runtime.close();
    await net.close();
    await probe.close();
    await connection.close();
    log.info('stopped');
  });
  return {
    url: probe.url,
    stopped,
    async stop() {
      abort.abort();
      await stopped;
    },
  };
}
