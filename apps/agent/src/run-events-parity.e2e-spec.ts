import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterConnection, ObjectClient, type KubeObject } from '@flotilla/kube';
import { adminManager, createTenant, unique } from '../../../libs/engine/testdata/harness';
import { eventually } from '../../../libs/kube/testdata/eventually';
import { harnessEnv } from '../../../test/harness/env';
import { startKubeCluster, type KubeCluster } from '../../../test/harness/kube-cluster';
import { serviceAccountSubject, waitUntilAllowed } from '../../../test/harness/kube-rbac';
import { testDir } from '../../../test/harness/temp-dirs';
import { startTestHub, type TestHub } from '../../hub/test/hub';
import { kubeconfigYaml } from '../../hub/test/kubeconfig';
import { fastScheduler } from '../../hub/test/scheduler-fixtures';
import { defaultCdeventsConfig } from '../../hub/src/config/cdevents-config';
import { defaultAgentServerConfig } from '../../hub/src/config/hub-config';
import { kubeconfigFile, startAgentProcess, testAgentArgs, type AgentProcess } from '../test/agent-process';
import { AGENT_NAMESPACE, agentToken, installAgent } from '../test/install';
import { projectRepository, pushGreeter, pushGreeterModule } from '../test/project-fixtures';

// One hub, one push cluster (the harness API server, run by the hub's
// engine) and one agent cluster (an API server of its own, run by the
// compiled agent), one Project on both with the same bundle. Whoever ran it,
// the hub must show the same events for a run: the same instance events,
// the same service CDEvents at the Project's sink, the same run triggers.

jest.setTimeout(240_000);

const PUSH = 'parity-push';
const AGENT = 'parity-agent';
const PROJECT = 'greet';

interface ViewEvent {
  cluster: string | null;
  type: string;
  reason: string;
  message: string;
}

interface ReceivedCdevent {
  context: { type: string };
  subject: { id: string; content: Record<string, unknown> };
  customData: { flotilla: { cluster?: string; reason: string; message: string; revision?: string; instance?: { name: string; namespace: string; component?: string }; error?: string } };
}

/** What differs between two runs of the same thing: durations, and the cluster's own name. */
function normalize(text: string, cluster: string): string {
  return text.replace(/\b\d+ ms\b/g, '_ ms').split(cluster).join('<cluster>');
}

/** A multiset as a sorted list, so two can be compared with toEqual and a difference reads as a diff. */
const multiset = (keys: string[]) => [...keys].sort();

/** A CDEvents sink that keeps every event it received (binary mode: the body is the CDEvent). */
class Sink {
  readonly received: ReceivedCdevent[] = [];
  private readonly server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      try {
        this.received.push(JSON.parse(body) as ReceivedCdevent);
        res.writeHead(202).end();
      } catch {
        res.writeHead(400).end('not JSON');
      }
    });
  });
  url = '';
  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/events`;
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

describe("an agent's own runs and the hub's show the same events", () => {
  const { manager } = adminManager();
  const client = manager.client;
  const sink = new Sink();
  let spoke: KubeCluster;
  let spokeClient: ObjectClient;
  let hub: TestHub;
  let agent: AgentProcess;
  let ns: string;
  let digest: string;

  /** The same tenant namespace on the agent's cluster: the Project's service account may do anything there. */
  async function spokeTenant(name: string): Promise<void> {
    const apply = (obj: KubeObject) => spokeClient.apply(obj, { dryRun: false, force: true, fieldManager: 'flotilla-test' });
    await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: name } });
    await apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'tenant-admin', namespace: name }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] });
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'tenant-admin', namespace: name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tenant-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: name }],
    });
    await waitUntilAllowed(spoke.endpoint, { ...serviceAccountSubject(name, 'deployer'), namespace: name, verb: 'create', resource: 'configmaps' });
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const target = async (cluster: string): Promise<any> => (await hub.call('GET', `/api/v1/projects/${PROJECT}/targets/${cluster}`)).body;
  const runs = async (cluster: string): Promise<Array<{ trigger: string; result: string; revision: string | null }>> =>
    (await hub.call('GET', `/api/v1/projects/${PROJECT}/targets/${cluster}/runs?limit=100`)).body.items;

  /** The hub's events of the Project on `cluster`, as (type, reason, message) with durations and the cluster's name taken out. */
  async function hubEvents(cluster: string): Promise<string[]> {
    const items: ViewEvent[] = [];
    let next: string | undefined;
    do {
      const page = (await hub.call('GET', `/api/v1/projects/${PROJECT}/events?cluster=${cluster}&limit=100${next ? `&continue=${encodeURIComponent(next)}` : ''}`)).body;
      items.push(...page.items);
      next = page.continue ?? undefined;
    } while (next);
    expect(items.every((e) => e.cluster === cluster)).toBe(true);
    return multiset(items.map((e) => `${e.type} ${e.reason}: ${normalize(e.message, cluster)}`));
  }

  /** The CDEvents the sink received about `cluster`: kind, subject, and the facts the hub put in them. */
  function cdevents(cluster: string): string[] {
    return multiset(
      sink.received
        .filter((e) => e.customData?.flotilla?.cluster === cluster)
        .map((e) => {
          const f = e.customData.flotilla;
          return normalize(JSON.stringify([e.context.type, e.subject.id, e.subject.content, f.reason, f.revision ?? null, f.instance ?? null, f.message, f.error ?? null]), cluster);
        }),
    );
  }

  /** Every CDEvent the outbox holds for the Project was delivered, and the sink has them all. */
  async function allDelivered(): Promise<void> {
    await eventually('every CDEvent delivered', async () => {
      const items: Array<{ state: string }> = (await hub.call('GET', `/api/v1/projects/${PROJECT}/deliveries?limit=100`)).body.items;
      return items.length > 0 && items.every((d) => d.state === 'delivered') && sink.received.length === items.length ? true : undefined;
    }, 30_000);
  }

  beforeAll(async () => {
    await sink.start();
    let moduleUrl: string;
    [moduleUrl, ns, spoke, hub] = await Promise.all([
      pushGreeterModule(),
      createTenant(client, 'parity'),
      // the agent's cluster: an API server of its own (no controllers: the bundle is ConfigMaps)
      startKubeCluster(AGENT, { workDir: testDir('flotilla-parity-spoke-'), controllers: false }),
      startTestHub('postgres', {
        scheduler: fastScheduler({ sourcePollMs: 300, hubId: 'hub-parity', concurrency: 4 }),
        agents: { ...defaultAgentServerConfig('127.0.0.1'), port: 0 },
        cdevents: { ...defaultCdeventsConfig(), delivery: true },
      }),
    ]);
    spokeClient = new ObjectClient(ClusterConnection.create({ server: spoke.endpoint.server, caData: spoke.endpoint.caData, token: spoke.endpoint.admin.token }));
    const repo = projectRepository();
    digest = await pushGreeter(repo, moduleUrl, ns, { cache: true, shout: false });

    const kube = harnessEnv().kube;
    expect((await hub.call('POST', '/api/v1/clusters', { body: { name: PUSH, group: 'parity', mode: 'push', endpoint: { server: kube.server, caData: kube.caData }, credentials: { token: kube.admin.token } } })).status).toBe(201);
    expect((await hub.call('POST', '/api/v1/clusters', { body: { name: AGENT, group: 'parity', mode: 'agent' } })).status).toBe(201);
    // the agent's install as the hub hands it out, applied to the agent's own cluster
    const manifest = await hub.call('GET', `/api/v1/clusters/${AGENT}/agent/manifest`);
    expect(manifest.status).toBe(200);
    const dir = testDir('flotilla-parity-manifest-');
    writeFileSync(join(dir, 'install.yaml'), manifest.text);
    await installAgent(spokeClient, dir);
    await spokeTenant(ns);
    const hubSecret = await spokeClient.get({ apiVersion: 'v1', kind: 'Secret', namespace: AGENT_NAMESPACE, name: 'flotilla-agent-hub' });
    const fromSecret = (k: string) => Buffer.from((hubSecret.data as Record<string, string>)[k], 'base64').toString();
    const kubeconfig = kubeconfigYaml({ server: spoke.endpoint.server, caData: spoke.endpoint.caData, token: await agentToken(spokeClient), context: 'flotilla-agent' });
    agent = startAgentProcess(
      testAgentArgs({ kubeconfig: kubeconfigFile(kubeconfig), identity: unique('agent-parity'), namespace: ns }, [
        `--hub-address=${fromSecret('hubAddress')}`,
        `--hub-identity-secret=${AGENT_NAMESPACE}/flotilla-agent-identity`,
        '--hub-heartbeat=500ms',
        '--hub-reconnect-max=1s',
      ]),
      { FLOTILLA_HUB_BOOTSTRAP_TOKEN: fromSecret('bootstrapToken'), FLOTILLA_HUB_CA: fromSecret('hubCa') },
    );
    await agent.url;
    await eventually('the agent connected', async () => ((await hub.call('GET', `/api/v1/clusters/${AGENT}`)).body.agent?.connected ? true : undefined), 60_000);

    const created = await hub.call('POST', '/api/v1/projects', {
      body: { name: PROJECT, namespace: ns, serviceAccountName: 'deployer', source: { repository: repo, tag: 'latest' }, targets: { names: [PUSH, AGENT] }, cdeventsSink: sink.url },
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    await agent?.stop();
    await hub?.close();
  });

  // a hook of its own: the spoke's processes go even when the one above runs out of time
  afterAll(async () => {
    await sink.close();
    await spokeClient?.connection.close();
    await spoke?.stop();
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await client.connection.close();
  });

  it('the first run: the same instance events, service CDEvents and trigger on the push and the agent cluster', async () => {
    for (const cluster of [PUSH, AGENT]) {
      const t = await eventually(`${cluster} Ready`, async () => {
        const v = await target(cluster);
        return v.phase === 'Ready' ? v : undefined;
      }, 90_000).catch(async (err: Error) => {
        // what the hub shows and what the agent said, to tell a slow run from a refused one
        throw new Error(`${err.message}: ${JSON.stringify(await target(cluster))}\nagent:\n${agent.output().slice(-4000)}`, { cause: err });
      });
      expect(t).toMatchObject({ lastAppliedRevision: `latest@${digest}`, observedGeneration: 1 });
    }
    const push = await hubEvents(PUSH);
    const agentSide = await hubEvents(AGENT);
    // three instances applied (db and cache, then web), each an event
    expect(push.filter((e) => e.startsWith('Normal InstanceApplied:'))).toHaveLength(3);
    expect(agentSide).toEqual(push);

    await allDelivered();
    const pushCd = cdevents(PUSH);
    expect(pushCd.filter((e) => e.includes('dev.cdevents.service.deployed'))).toHaveLength(3);
    expect(cdevents(AGENT)).toEqual(pushCd);

    expect((await runs(PUSH)).map((r) => [r.trigger, r.result, r.revision])).toEqual([['Created', 'Succeeded', `latest@${digest}`]]);
    expect((await runs(AGENT)).map((r) => [r.trigger, r.result, r.revision])).toEqual([['Created', 'Succeeded', `latest@${digest}`]]);
  });

  it('a manual reconcile: one more run on each, again with the same events, service CDEvents and trigger', async () => {
    const requested = await hub.call('POST', `/api/v1/projects/${PROJECT}/reconcile`);
    expect(requested.status).toBeLessThan(300);
    expect(requested.body.requested).toBe(2);
    for (const cluster of [PUSH, AGENT]) {
      await eventually(`the manual run on ${cluster} stored`, async () => ((await runs(cluster)).filter((r) => r.result !== 'Running').length >= 2 ? true : undefined), 90_000);
    }
    const expected = [
      ['Manual', 'Succeeded', `latest@${digest}`],
      ['Created', 'Succeeded', `latest@${digest}`],
    ];
    expect((await runs(PUSH)).map((r) => [r.trigger, r.result, r.revision])).toEqual(expected);
    expect((await runs(AGENT)).map((r) => [r.trigger, r.result, r.revision])).toEqual(expected);

    const push = await hubEvents(PUSH);
    expect(push.filter((e) => e.startsWith('Normal InstanceApplied:'))).toHaveLength(6);
    expect(await hubEvents(AGENT)).toEqual(push);

    await allDelivered();
    const pushCd = cdevents(PUSH);
    // an instance applied again on the same revision is no new deployment
    expect(pushCd.filter((e) => e.includes('dev.cdevents.service.'))).toHaveLength(3);
    expect(cdevents(AGENT)).toEqual(pushCd);
  });
});
