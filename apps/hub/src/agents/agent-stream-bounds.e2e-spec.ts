import { status as GrpcStatus } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { startTestHub, type TestHub } from '../../test/hub';
import { eventually, fastScheduler } from '../../test/scheduler-fixtures';
import { SimulatedAgent } from '../../test/simulated-agent';
import { defaultAgentServerConfig } from '../config/hub-config';
import type { TagResolver } from '../../test/scheduler-fixtures';
import { AgentCa } from './agent-ca.service';
import { AgentGrpcServer } from './agent-grpc.server';

// What one agent may send is bounded at the hub, on the harness PostgreSQL
// with agents speaking the real protocol over mutual TLS: a field over its
// bound and a stream over its message rate are refused with the stream
// closed, counted, and nothing else of the hub notices.

jest.setTimeout(120_000);

class FixedResolver implements TagResolver {
  async resolve(): Promise<string> {
    return `sha256:${'a'.repeat(64)}`;
  }
}

describe('bounds on what agents send', () => {
  let hub: TestHub;
  let address: string;
  let caPem: string;
  const agents: SimulatedAgent[] = [];

  function agent(): SimulatedAgent {
    const a = new SimulatedAgent(address, caPem);
    agents.push(a);
    return a;
  }

  async function registered(name: string): Promise<SimulatedAgent> {
    const res = await hub.call('POST', '/api/v1/clusters', { body: { name, group: 'edge', mode: 'agent' } });
    expect(res.status).toBe(201);
    const a = agent();
    await a.register(res.body.agent.bootstrapToken);
    return a;
  }

  async function refusedCount(reason: string, message: string): Promise<number> {
    const text = (await hub.call('GET', '/metrics')).text as string;
    const line = text.split('\n').find((l) => l.startsWith(`flotilla_agent_messages_refused_total{reason="${reason}",message="${message}"} `));
    return line ? Number(line.split(' ')[1]) : 0;
  }

  beforeAll(async () => {
    const agentsConfig = defaultAgentServerConfig('127.0.0.1');
    hub = await startTestHub(
      'postgres',
      {
        scheduler: fastScheduler({ sourcePollMs: 200 }),
        // small buckets, so a flood is a few hundred messages on any machine
        agents: { ...agentsConfig, port: 0, streamRates: { ...agentsConfig.streamRates, reports: { perSecond: 1, burst: 20 }, events: { perSecond: 1, burst: 20 }, other: { perSecond: 1, burst: 20 } } },
      },
      { scheduler: { tagResolver: new FixedResolver() } },
    );
    address = `127.0.0.1:${hub.app.get(AgentGrpcServer).port}`;
    caPem = hub.app.get(AgentCa).certPem;
  });

  afterAll(async () => {
    for (const a of agents) a.close();
    await hub?.close();
  });

  it('refuses an oversized agentVersion in Register and in Hello, and stores none of it', async () => {
    const res = await hub.call('POST', '/api/v1/clusters', { body: { name: 'vers', group: 'edge', mode: 'agent' } });
    const a = agent();
    a.agentVersion = 'v'.repeat(100_000);
    await expect(a.register(res.body.agent.bootstrapToken)).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT, details: expect.stringContaining('agent_version is 100000 bytes, at most 64 are accepted') });
    // refused before the token was looked at: it still registers an agent
    a.agentVersion = 'sim-1';
    await a.register(res.body.agent.bootstrapToken);

    const before = await refusedCount('oversized', 'hello');
    a.agentVersion = `1.0.0-${'x'.repeat(5000)}`;
    a.connect();
    await a.until(() => a.ended);
    expect(a.ended).toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT, details: expect.stringContaining('hello.agent_version is 5006 bytes, at most 64 are accepted') });
    expect(a.received.find((m) => m.body?.$case === 'assignments')).toBeUndefined();
    expect((await refusedCount('oversized', 'hello')) - before).toBe(1);
    const view = (await hub.call('GET', '/api/v1/clusters/vers')).body;
    expect(view.agent).toMatchObject({ connected: false, version: null });

    // the same agent with a version that fits is welcome
    a.agentVersion = '1.0.0';
    a.connect();
    await a.until(() => a.received.find((m) => m.body?.$case === 'assignments'));
    await eventually('connected', async () => ((await hub.call('GET', '/api/v1/clusters/vers')).body.agent.version === '1.0.0' ? true : undefined));
  });

  it('cuts a stream that floods reports or events, and the hub goes on serving other agents', async () => {
    const calm = await registered('calm');
    calm.connect();
    await calm.until(() => calm.received.find((m) => m.body?.$case === 'assignments'));
    const flood = await registered('flood');

    // a Hello after the opening one counts as any other message
    for (const [kind, message] of [['reports', 'report'], ['events', 'event'], ['messages other than reports and events', 'hello']] as const) {
      flood.connect();
      await flood.until(() => flood.received.find((m) => m.body?.$case === 'assignments'));
      const before = await refusedCount('rate', message);
      // far past the bucket of 20: the hub would have to take 1 per second for minutes
      for (let i = 0; i < 400 && !flood.ended; i++) {
        if (kind === 'reports') flood.send({ body: { $case: 'report', value: { targetId: randomUUID(), generation: 1, reportId: randomUUID(), reportJson: '{}' } } });
        else if (kind === 'events') flood.send({ body: { $case: 'event', value: { targetId: randomUUID(), type: 'Normal', reason: 'InstanceApplied', message: 'flood', revision: '', component: '', instance: '', namespace: '', time: undefined } } });
        else flood.send({ body: { $case: 'hello', value: { agentVersion: 'sim-1', kubeVersion: 'v1.36.0', lastAppliedGeneration: 0, bufferedReports: [] } } });
      }
      await flood.until(() => flood.ended, 60_000);
      expect(flood.ended).toMatchObject({ code: GrpcStatus.RESOURCE_EXHAUSTED, details: expect.stringContaining(`more ${kind} than one stream may (20 at once, then 1 per second)`) });
      expect((await refusedCount('rate', message)) - before).toBe(1);
    }

    // the hub stays responsive, and the other agent's work is stored
    const health = await hub.call('GET', '/healthz', { token: null });
    expect(health.status).toBe(200);
    const created = await hub.call('POST', '/api/v1/projects', {
      body: { name: 'calm-web', namespace: 'web', source: { repository: 'oci://registry.example/web', tag: 'stable' }, targets: { names: ['calm'] } },
    });
    expect(created.status).toBe(201);
    const t = await eventually('calm reported', async () => {
      const v = (await hub.call('GET', '/api/v1/projects/calm-web/targets/calm')).body;
      return v.phase === 'Ready' ? v : undefined;
    });
    expect(t.lastAppliedRevision).toBe(`stable@sha256:${'a'.repeat(64)}`);
    expect(calm.ended).toBeUndefined();
  });
});
