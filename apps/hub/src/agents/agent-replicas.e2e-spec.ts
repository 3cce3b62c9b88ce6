import { randomBytes } from 'node:crypto';
import { createTempDataDir, createTestDatabase, type TestDatabase } from '../../test/databases';
import { launch } from '../../test/hub';
import { eventually, RecordingRunner, schedulerHubConfig } from '../../test/scheduler-fixtures';
import { SimulatedAgent } from '../../test/simulated-agent';
import type { TagResolver } from '../scheduler/sources/tag-resolver';
import { AgentCa } from './agent-ca.service';
import { AgentGrpcServer } from './agent-grpc.server';

// Two hub replicas on one PostgreSQL. The agent is connected to B, whose
// scheduler ticks once a minute; A ticks fast and is the one that sees the
// new digest. The digest still reaches the agent at once: A's wakeup goes to
// B through LISTEN/NOTIFY, and only B can run the agent's Targets. A reset
// decided on A cuts the agent's stream on B the same way.

jest.setTimeout(120_000);

class SettableResolver implements TagResolver {
  digest = '';
  async resolve(): Promise<string> {
    if (!this.digest) throw new Error('no digest yet');
    return this.digest;
  }
}

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

    const edge = await a.call('POST', '/api/v1/clusters', { body: { name: 'edge', mode: 'agent' } });
    // B trusts the CA A made at its start: replicas share one
    agent = new SimulatedAgent(`127.0.0.1:${b.app.get(AgentGrpcServer).port}`, a.app.get(AgentCa).certPem);
    await agent.register(edge.body.agent.bootstrapToken);
    agent.connect();
    await agent.until(() => agent.received.find((m) => m.body?.$case === 'assignments'));
    // B has ticked (at its start) and now sleeps for a minute
    resolverA.digest = digest('a');
    expect((await a.call('POST', '/api/v1/projects', { body: { name: 'p', namespace: 'p', source: { repository: 'oci://registry.example/p', tag: 'stable' }, targets: { names: ['edge'] } } })).status).toBe(201);
    const first = await agent.until(() => [...agent.assignments.values()].find((x) => x.digest === digest('a')), 20_000);
    expect(first.projectName).toBe('p');
    await eventually('Ready through B', async () => ((await a.call('GET', '/api/v1/projects/p/targets/edge')).body.phase === 'Ready' ? true : undefined));
    const runs = (await a.call('GET', '/api/v1/projects/p/targets/edge/runs')).body.items;
    expect(runs[0]).toMatchObject({ leaseOwner: 'hub-b', result: 'Succeeded' });

    resolverA.digest = digest('b');
    await agent.until(() => [...agent.assignments.values()].find((x) => x.digest === digest('b')), 20_000);

    expect((await a.call('POST', '/api/v1/clusters/edge/agent/reset')).status).toBe(200);
    await agent.until(() => agent.ended, 20_000);
  });
});
