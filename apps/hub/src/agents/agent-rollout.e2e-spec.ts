import { startTestHub, type TestHub } from '../../test/hub';
import { addFakeClusters, eventually, fastScheduler, RecordingRunner, SettableResolver } from '../../test/scheduler-fixtures';
import { SimulatedAgent } from '../../test/simulated-agent';
import { AgentCa } from './agent-ca.service';
import { AgentGrpcServer } from './agent-grpc.server';

// Rollout waves across a push cluster (wave 1) and an agent cluster (wave 2):
// the agent gets a revision only once the push wave is Ready on it, never
// while that wave fails, and as soon as it is fixed. The push runs are
// in-process; the agent speaks the real protocol over a real connection.

jest.setTimeout(120_000);

const digest = (c: string) => `sha256:${c.repeat(64)}`;

describe('rollout waves across push and agent clusters', () => {
  let hub: TestHub;
  let agent: SimulatedAgent;
  const resolver = new SettableResolver();
  const runner = new RecordingRunner('hub-waves');

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const target = async (cluster: string): Promise<any> => (await hub.call('GET', `/api/v1/projects/wave/targets/${cluster}`)).body;
  /** when the agent first held an assignment of `d` */
  const seen = new Map<string, number>();
  const assignedDigest = () => [...agent.assignments.values()][0]?.digest;

  beforeAll(async () => {
    hub = await startTestHub('postgres', { scheduler: fastScheduler({ sourcePollMs: 200, hubId: 'hub-waves' }) }, { scheduler: { targetRunner: runner, tagResolver: resolver } });
    await addFakeClusters(hub, [['s1', 'staging']]);
    const edge = await hub.call('POST', '/api/v1/clusters', { body: { name: 'edge', group: 'prod', mode: 'agent' } });
    agent = new SimulatedAgent(`127.0.0.1:${hub.app.get(AgentGrpcServer).port}`, hub.app.get(AgentCa).certPem);
    await agent.register(edge.body.agent.bootstrapToken);
    agent.connect();
    await agent.until(() => agent.received.find((m) => m.body?.$case === 'assignments'));
    agent.onMessage = () => {
      const d = assignedDigest();
      if (d && !seen.has(d)) seen.set(d, Date.now());
    };
  });

  afterAll(async () => {
    agent?.close();
    await hub?.close();
  });

  it('holds the agent wave until the push wave is Ready, halts on its failure, resumes when fixed', async () => {
    resolver.digest = digest('a');
    const created = await hub.call('POST', '/api/v1/projects', { body: { name: 'wave', namespace: 'wave', source: { repository: 'oci://registry.example/wave', tag: 'stable' }, targets: { groups: ['staging', 'prod'] }, rollout: { groups: ['staging', 'prod'] } } });
    expect(created.status).toBe(201);
    await eventually('the agent wave Ready on a', async () => ((await target('edge')).lastAppliedRevision === `stable@${digest('a')}` ? true : undefined));
    const s1a = runner.runs.find((r) => r.target === 'wave/s1' && r.digest === digest('a') && r.ok)!;
    expect(seen.get(digest('a'))).toBeGreaterThanOrEqual(s1a.end);

    // b fails on the push wave: the agent keeps a
    runner.failing.add(`s1@${digest('b')}`);
    resolver.digest = digest('b');
    await eventually('s1 failing on b, twice', async () => {
      const s1 = await target('s1');
      return s1.phase === 'Failed' && s1.attempt >= 2 ? true : undefined;
    });
    expect(assignedDigest()).toBe(digest('a'));
    expect(seen.has(digest('b'))).toBe(false);
    expect(await target('edge')).toMatchObject({ lastAppliedRevision: `stable@${digest('a')}` });

    // fixed: the agent wave follows by itself
    runner.failing.delete(`s1@${digest('b')}`);
    await eventually('the agent wave Ready on b', async () => ((await target('edge')).lastAppliedRevision === `stable@${digest('b')}` ? true : undefined));
    const s1b = runner.runs.find((r) => r.target === 'wave/s1' && r.digest === digest('b') && r.ok)!;
    expect(seen.get(digest('b'))).toBeGreaterThanOrEqual(s1b.end);
  });
});
