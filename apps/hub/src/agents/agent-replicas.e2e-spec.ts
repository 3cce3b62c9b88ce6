import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { startTcpProxy } from '../../../agent/test/tcp-proxy';
import { HubProcess } from '../../../../test/e2e/support/hub-process';
import { createTempDataDir, createTestDatabase, type TestDatabase } from '../../test/databases';
import { launch } from '../../test/hub';
import { eventually, RecordingRunner, schedulerHubConfig, SettableResolver } from '../../test/scheduler-fixtures';
import { SimulatedAgent } from '../../test/simulated-agent';
import { AgentCa } from './agent-ca.service';
import { AgentGrpcServer } from './agent-grpc.server';

// Two hub replicas on one PostgreSQL. The agent is connected to B, whose
// scheduler ticks once a minute; A ticks fast and is the one that sees the
// new digest. The digest still reaches the agent at once: A's wakeup goes to
// B through LISTEN/NOTIFY, and only B can run the agent's Targets. A reset
// decided on A cuts the agent's stream on B the same way. And when B dies
// (SIGKILL of the compiled hub), the agent reaches A through the address it
// dials (a proxy standing in for the Service) and loses nothing.

jest.setTimeout(120_000);

const encryptionKeys = `k1:${randomBytes(32).toString('base64')}`;
const adminToken = `adm_${randomBytes(16).toString('hex')}`;
const digest = (c: string) => `sha256:${c.repeat(64)}`;

describe('agents and hub replicas', () => {
  let db: TestDatabase;
  let tmp: { dir: string; cleanup(): void };
  const stops: Array<() => Promise<void>> = [];
  let agent: SimulatedAgent;

  afterAll(async () => {
    agent?.close();
    for (const stop of stops.reverse()) await stop();
    await db?.drop();
    tmp?.cleanup();
  });

  it('a digest seen on one replica reaches the agent connected to the other at once; a reset there cuts it', async () => {
    db = await createTestDatabase();
    tmp = createTempDataDir();
    const resolverA = new SettableResolver();
    const a = await launch(schedulerHubConfig(db.url, tmp.dir, { adminToken, encryptionKeys }, { hubId: 'hub-a', tickMs: 50, sourcePollMs: 200 }), {
      scheduler: { targetRunner: new RecordingRunner('hub-a'), tagResolver: resolverA },
    });
    stops.push(() => a.stop());
    // B: a minute between ticks, and its poller never resolves anything
    const b = await launch(schedulerHubConfig(db.url, tmp.dir, { adminToken, encryptionKeys }, { hubId: 'hub-b', tickMs: 60_000, sourcePollMs: 3_600_000 }), {
      scheduler: { targetRunner: new RecordingRunner('hub-b'), tagResolver: new SettableResolver() },
    });
    stops.push(() => b.stop());

    // B trusts the CA A made at its start: replicas share one
    agent = await connectedAgent(a, `127.0.0.1:${b.app.get(AgentGrpcServer).port}`);
    // B has ticked (at its start) and now sleeps for a minute
    resolverA.digest = digest('a');
    await createProjectOnEdge(a, 'p');
    const first = await agent.until(() => [...agent.assignments.values()].find((x) => x.digest === digest('a')), 20_000);
    expect(first.projectName).toBe('p');
    await eventually('Ready through B', async () => ((await a.call('GET', '/api/v1/projects/p/targets/edge')).body.phase === 'Ready' ? true : undefined));
    const runs = (await a.call('GET', '/api/v1/projects/p/targets/edge/runs')).body.items;
    expect(runs[0]).toMatchObject({ leaseOwner: 'hub-b', result: 'Succeeded' });

    resolverA.digest = digest('b');
    await agent.until(() => [...agent.assignments.values()].find((x) => x.digest === digest('b')), 20_000);

    // a fleet diff asked of A reaches the agent through B, and the agent's answer comes back to A
    const answer = { revision: `v2@${digest('e')}`, unchanged: 2, objects: [{ subject: 'ConfigMap/p/web', instance: 'p/web', component: 'app', action: 'changed', diff: '--- live\n+++ after\n' }], errors: [] };
    agent.diffAnswer = (request) => ({ requestId: request.requestId, unsupported: false, diffJson: JSON.stringify(answer), error: '' });
    const diffed = await a.call('POST', '/api/v1/projects/p/diff', { body: { tag: 'v2' } });
    expect(diffed.status).toBe(200);
    expect(diffed.body.clusters).toEqual([
      expect.objectContaining({ cluster: 'edge', mode: 'agent', state: 'diffed', revision: answer.revision, objects: answer.objects, counts: { created: 0, changed: 1, pruned: 0, unchanged: 2 } }),
    ]);
    const asked = agent.received.flatMap((m) => (m.body?.$case === 'dryRunDiff' ? [m.body.value] : []));
    expect(asked).toEqual([expect.objectContaining({ targetId: first.targetId, tag: 'v2', digest: '', artifact: Buffer.alloc(0) })]);
    // an agent that predates diffs is named as such
    agent.diffAnswer = undefined;
    const older = await a.call('POST', '/api/v1/projects/p/diff', { body: {} });
    expect(older.body.clusters[0]).toMatchObject({ state: 'skipped', message: expect.stringContaining('does not answer dry-run diffs: upgrade it') });
    // the relayed requests are gone once answered
    expect(await a.app.get(DataSource).query('SELECT id FROM agent_diff_relays')).toEqual([]);

    // an upgrade asked of A reaches the agent through B, with the hub's configured image and no other
    const upgrade = await a.call('POST', '/api/v1/clusters/edge/agent/upgrade');
    expect(upgrade.status).toBe(202);
    expect(upgrade.body).toMatchObject({ cluster: 'edge', image: a.config.agents.image });
    const sent = await agent.until(() => agent.received.find((m) => m.body?.$case === 'upgrade'), 20_000);
    expect(sent.body).toEqual({ $case: 'upgrade', value: { image: a.config.agents.image } });

    expect((await a.call('POST', '/api/v1/clusters/edge/agent/reset')).status).toBe(200);
    await agent.until(() => agent.ended, 20_000);
  });

  it('when its replica is SIGKILLed, the agent reconnects to the other and loses nothing', async () => {
    const db2 = await createTestDatabase();
    const tmp2 = createTempDataDir();
    const resolverA = new SettableResolver();
    const a = await launch(schedulerHubConfig(db2.url, tmp2.dir, { adminToken, encryptionKeys }, { hubId: 'hub-a', tickMs: 50, sourcePollMs: 200, leaseTtlMs: 3000 }), {
      scheduler: { targetRunner: new RecordingRunner('hub-a'), tagResolver: resolverA },
    });
    // B: the compiled hub, so that it can die without a word
    const b = new HubProcess('agent-replica-b', {
      DATABASE_URL: db2.url,
      FLOTILLA_ENCRYPTION_KEYS: encryptionKeys,
      FLOTILLA_ADMIN_TOKEN: adminToken,
      FLOTILLA_SCHEDULER_TICK: '100ms',
      FLOTILLA_LEASE_TTL: '3s',
      FLOTILLA_SOURCE_POLL_INTERVAL: '1h',
      FLOTILLA_CDEVENTS_DELIVERY: 'off',
    });
    let proxy: Awaited<ReturnType<typeof startTcpProxy>> | undefined;
    let agent2: SimulatedAgent | undefined;
    try {
      await b.url;
      const bPort = await agentPortOf(b);
      proxy = await startTcpProxy({ host: '127.0.0.1', port: bPort });
      const agent = (agent2 = await connectedAgent(a, proxy.server.replace('https://', '')));
      resolverA.digest = digest('c');
      await createProjectOnEdge(a, 'q');
      const held = await agent.until(() => [...agent.assignments.values()].find((x) => x.digest === digest('c')), 30_000);
      await eventually('Ready through B', async () => ((await a.call('GET', '/api/v1/projects/q/targets/edge')).body.phase === 'Ready' ? true : undefined));
      expect((await a.call('GET', '/api/v1/projects/q/targets/edge/runs')).body.items[0]).toMatchObject({ leaseOwner: 'agent-replica-b', result: 'Succeeded' });

      // B dies; the address the agent dials now leads to A, as a Service's would
      proxy.retarget({ host: '127.0.0.1', port: a.app.get(AgentGrpcServer).port });
      await b.kill();
      await agent.until(() => agent.ended, 30_000);
      // meanwhile the agent corrected drift on its own (its interval): a report the hub has not seen
      const own = agent.reportFor(held, true);
      agent.unacked.set(own.reportId, own);
      agent.connect();
      await agent.until(() => (agent.unacked.has(own.reportId) ? undefined : true), 30_000);
      const agentRuns = async () => (await a.call('GET', '/api/v1/projects/q/targets/edge/runs?limit=100')).body.items.filter((r: { trigger: string }) => r.trigger === 'Interval');
      expect(await agentRuns()).toHaveLength(1);

      // and A now carries the cluster's work: a new digest reaches the agent through it
      resolverA.digest = digest('d');
      await agent.until(() => [...agent.assignments.values()].find((x) => x.digest === digest('d')), 30_000);
      await eventually('Ready on the new digest through A', async () => {
        const runs = (await a.call('GET', '/api/v1/projects/q/targets/edge/runs')).body.items;
        return runs[0]?.revision?.endsWith(digest('d')) && runs[0].result === 'Succeeded' ? runs[0] : undefined;
      });
      expect((await a.call('GET', '/api/v1/projects/q/targets/edge/runs')).body.items[0]).toMatchObject({ leaseOwner: 'hub-a' });
      expect((await a.call('GET', '/api/v1/clusters/edge')).body.agent).toMatchObject({ connected: true });
    } catch (err) {
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n--- hub B (${b.logFile}):\n${b.tail(40)}`, { cause: err });
    } finally {
      agent2?.close();
      await proxy?.close();
      await b.kill();
      await a.stop();
      await db2.drop();
      tmp2.cleanup();
    }
  });
});

type Replica = Awaited<ReturnType<typeof launch>>;

/** Registers the agent cluster `edge` on `hub` and connects a simulated agent for it through `address`, holding its assignments. */
async function connectedAgent(hub: Replica, address: string): Promise<SimulatedAgent> {
  const edge = await hub.call('POST', '/api/v1/clusters', { body: { name: 'edge', mode: 'agent' } });
  const agent = new SimulatedAgent(address, hub.app.get(AgentCa).certPem);
  await agent.register(edge.body.agent.bootstrapToken);
  agent.connect();
  await agent.until(() => agent.received.find((m) => m.body?.$case === 'assignments'));
  return agent;
}

async function createProjectOnEdge(hub: Replica, name: string): Promise<void> {
  const res = await hub.call('POST', '/api/v1/projects', { body: { name, namespace: name, source: { repository: `oci://registry.example/${name}`, tag: 'stable' }, targets: { names: ['edge'] } } });
  expect(res.status).toBe(201);
}

/** The agent port a compiled hub bound (FLOTILLA_AGENT_PORT=0), from its log. */
async function agentPortOf(hub: HubProcess): Promise<number> {
  const found = await eventually('the agent port in the hub log', async () => /"address":"[^"]*:(\d+)","msg":"agent gRPC server listening"/.exec(hub.tail(400))?.[1]);
  return Number(found);
}
