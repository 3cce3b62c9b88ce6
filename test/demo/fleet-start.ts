import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { startKube } from '../harness/kube';
import { startRegistry } from '../harness/registry';
import type { KubeEndpoint, RunningService } from '../harness/types';
import { AGENT_NAMESPACE, DEMO_NAMESPACE, DEMO_SERVICE_ACCOUNT, prepareAgentCluster, prepareTenant } from './cluster-prepare';
import { DemoError } from './demo-errors';
import { AGENT_MAIN, HUB_MAIN } from './demo-paths';
import type { DemoCluster } from './demo-state';
import { HubClient } from './hub-client';
import { startNodeService, type NodeService } from './node-service';
import { publishSample } from './sample-publish';

/** The demo fleet: two push clusters and an agent cluster in groups staging and production. */
export const FLEET: ReadonlyArray<Omit<DemoCluster, 'server'>> = [
  { name: 'staging-1', group: 'staging', mode: 'push' },
  { name: 'production-1', group: 'production', mode: 'push' },
  { name: 'production-2', group: 'production', mode: 'agent' },
];
export const PROJECT = 'hello';

export interface StartedFleet {
  hubUrl: string;
  adminToken: string;
  clusters: DemoCluster[];
  /** stops every process, the last started first */
  stop(): Promise<void>;
}

/** Stops what was started so far, newest first, each on its own (one failure stops nothing else from stopping). */
class Services {
  private readonly stops: Array<() => Promise<void>> = [];
  add(stop: () => Promise<void>): void {
    this.stops.push(stop);
  }
  async stopAll(): Promise<void> {
    for (const stop of this.stops.splice(0).reverse()) await stop().catch(() => undefined);
  }
}

function hubEnv(dir: string, adminToken: string): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PORT: process.env.FLOTILLA_DEMO_PORT ?? '0',
    FLOTILLA_AGENT_PORT: '0',
    FLOTILLA_DATA_DIR: dir,
    FLOTILLA_ADMIN_TOKEN: adminToken,
    // the demo's clusters and registry listen on loopback, which the hub refuses by default
    FLOTILLA_EGRESS_ALLOW_LOOPBACK: 'on',
    // quick rounds so the fleet converges in seconds rather than minutes
    FLOTILLA_SCHEDULER_TICK: '500ms',
    FLOTILLA_SOURCE_POLL_INTERVAL: '5s',
    FLOTILLA_SHUTDOWN_GRACE: '2s',
    LOG_LEVEL: 'info',
  };
}

/** The Secret flotilla-agent-hub of a cluster's install manifest: hub address, bootstrap token, agent CA. */
async function agentInstall(hub: HubClient, cluster: string): Promise<{ hubAddress: string; bootstrapToken: string; hubCa: string }> {
  const text = await hub.text(200, 'GET', `/api/v1/clusters/${cluster}/agent/manifest`);
  for (const doc of parseAllDocuments(text)) {
    const obj = doc.toJS() as { kind?: string; metadata?: { name?: string }; stringData?: Record<string, string> } | null;
    const data = obj?.kind === 'Secret' && obj.metadata?.name === 'flotilla-agent-hub' ? obj.stringData : undefined;
    if (data?.hubAddress && data.bootstrapToken && data.hubCa) return { hubAddress: data.hubAddress, bootstrapToken: data.bootstrapToken, hubCa: data.hubCa };
  }
  throw new DemoError(`the install manifest of ${cluster} has no Secret flotilla-agent-hub with hubAddress, bootstrapToken and hubCa`);
}

function kubeconfig(kube: KubeEndpoint, cluster: string): string {
  const ca = Buffer.from(kube.caData).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: ${cluster}, cluster: {server: "${kube.server}", certificate-authority-data: ${ca}}}]`,
    `users: [{name: admin, user: {token: ${kube.admin.token}}}]`,
    `contexts: [{name: ${cluster}, context: {cluster: ${cluster}, user: admin}}]`,
    `current-context: ${cluster}`,
    '',
  ].join('\n');
}

async function startAgent(dir: string, hub: HubClient, cluster: string, kube: KubeEndpoint): Promise<NodeService> {
  const install = await agentInstall(hub, cluster);
  const agentDir = join(dir, 'agent');
  mkdirSync(join(agentDir, 'cache'), { recursive: true });
  const kubeconfigFile = join(agentDir, 'kubeconfig');
  writeFileSync(kubeconfigFile, kubeconfig(kube, cluster), { mode: 0o600 });
  const args = [
    `--kubeconfig=${kubeconfigFile}`,
    '--http-address=127.0.0.1:0',
    `--cache-dir=${join(agentDir, 'cache')}`,
    `--identity=agent-${cluster}`,
    `--hub-address=${install.hubAddress}`,
    `--hub-identity-secret=${AGENT_NAMESPACE}/flotilla-agent-identity`,
  ];
  return startNodeService('agent', AGENT_MAIN, args, { FLOTILLA_HUB_BOOTSTRAP_TOKEN: install.bootstrapToken, FLOTILLA_HUB_CA: install.hubCa }, join(dir, 'agent.log'), 60_000);
}

/**
 * Starts the demo fleet with its state and logs under `dir`: a registry,
 * three clusters, a hub on its embedded database, an agent on the third
 * cluster; registers the clusters, publishes the sample and creates the
 * Project with a rollout over staging then production. `say` reports progress.
 */
export async function startFleet(dir: string, say: (line: string) => void): Promise<StartedFleet> {
  const services = new Services();
  const track = <T>(s: RunningService<T>) => {
    services.add(() => s.stop());
    return s.endpoint;
  };
  try {
    say('starting a registry and three clusters (etcd, kube-apiserver, controllers and kwok nodes each)');
    const started = Date.now();
    const [registry, ...kubes] = await Promise.all([
      startRegistry(dir, 'registry').then(track),
      ...FLEET.map((c) => startKube(join(dir, `cluster-${c.name}`)).then(track)),
    ]);
    say(`registry and clusters up in ${((Date.now() - started) / 1000).toFixed(1)}s`);

    const adminToken = `adm_${randomBytes(20).toString('hex')}`;
    const hubDir = join(dir, 'hub');
    mkdirSync(hubDir, { recursive: true });
    say('starting the hub on its embedded database');
    const hubProcess = await startNodeService('hub', HUB_MAIN, [], hubEnv(hubDir, adminToken), join(dir, 'hub.log'), 120_000);
    services.add(() => hubProcess.stop());
    const hub = new HubClient(hubProcess.url, adminToken);

    say('preparing namespace demo in every cluster');
    await Promise.all(kubes.map((k) => prepareTenant(k)));
    const clusters: DemoCluster[] = FLEET.map((c, i) => ({ ...c, server: kubes[i].server }));
    for (const [i, c] of clusters.entries()) {
      if (c.mode === 'push') {
        await hub.call(201, 'POST', '/api/v1/clusters', { name: c.name, group: c.group, mode: 'push', endpoint: { server: kubes[i].server, caData: kubes[i].caData }, credentials: { token: kubes[i].admin.token } });
      } else {
        await hub.call(201, 'POST', '/api/v1/clusters', { name: c.name, group: c.group, mode: 'agent' });
        await prepareAgentCluster(kubes[i]);
        const agent = await startAgent(dir, hub, c.name, kubes[i]);
        services.add(() => agent.stop());
      }
      say(`registered ${c.name} (group ${c.group}, ${c.mode})`);
    }

    const sample = await publishSample(registry, dir);
    say(`pushed the sample Project to ${sample.repository}:${sample.tag}`);
    await hub.call(201, 'POST', '/api/v1/projects', {
      name: PROJECT,
      namespace: DEMO_NAMESPACE,
      serviceAccountName: DEMO_SERVICE_ACCOUNT,
      source: { repository: sample.repository, tag: sample.tag },
      targets: { groups: ['staging', 'production'] },
      rollout: { groups: ['staging', 'production'] },
      interval: '5m',
    });
    say(`created Project ${PROJECT}: staging first, then production`);
    return { hubUrl: hubProcess.url, adminToken, clusters, stop: () => services.stopAll() };
  } catch (err) {
    await services.stopAll();
    throw err;
  }
}
