import { DataSource } from 'typeorm';
import { DATABASE_KINDS, startTestHub, type TestHub } from '../../test/hub';
import { eventually, fastScheduler, type TagResolver } from '../../test/scheduler-fixtures';
import { SimulatedAgent } from '../../test/simulated-agent';
import { AgentCa } from './agent-ca.service';
import { AgentGrpcServer } from './agent-grpc.server';

// An agent Target as desired state, on the harness PostgreSQL with an agent
// that speaks the real protocol: each change of the Project (interval,
// suspension, a manual request, deletion) is a new assignment generation the
// hub sends and never waits on; what the agent then reports is the Target's
// status, with the trigger a push run would record; changes made while the
// agent is away arrive with its full set when it is back.

jest.setTimeout(120_000);

class FixedResolver implements TagResolver {
  async resolve(): Promise<string> {
    return `sha256:${'d'.repeat(64)}`;
  }
}

// on the embedded database too: there a query outside a transaction waits for it, so a dispatch or an ingest
// that read beside its own transaction would hang
describe.each(DATABASE_KINDS)('agent Targets as desired state on %s', (_label, kind) => {
  let hub: TestHub;
  let a: SimulatedAgent;

  const assignment = () => [...a.assignments.values()].find((x) => x.projectName === 'shop');
  const runs = async (): Promise<Array<{ trigger: string; result: string }>> => (await hub.call('GET', '/api/v1/projects/shop/targets/edge/runs?limit=100')).body.items;
  /** the assignment once its generation passed `after`, and the agent's report of it stored */
  async function nextAssignment(after: number) {
    const next = await a.until(() => {
      const x = assignment();
      return x && x.generation > after ? x : undefined;
    });
    await a.until(() => (a.unacked.size === 0 ? true : undefined));
    return next;
  }

  beforeAll(async () => {
    hub = await startTestHub(kind, { scheduler: fastScheduler({ sourcePollMs: 200, hubId: 'hub-a' }) }, { scheduler: { tagResolver: new FixedResolver() } });
    const created = await hub.call('POST', '/api/v1/clusters', { body: { name: 'edge', group: 'default', mode: 'agent' } });
    a = new SimulatedAgent(`127.0.0.1:${hub.app.get(AgentGrpcServer).port}`, hub.app.get(AgentCa).certPem);
    await a.register(created.body.agent.bootstrapToken);
    a.connect();
    await a.until(() => a.received.find((m) => m.body?.$case === 'assignments'));
  });

  afterAll(async () => {
    a?.close();
    await hub?.close();
  });

  it('sends each change as a new generation, records the trigger a push run would, and shows the next run the agent reported', async () => {
    const created = await hub.call('POST', '/api/v1/projects', { body: { name: 'shop', namespace: 'shop', source: { repository: 'oci://registry.example/shop', tag: 'stable' }, targets: { names: ['edge'] }, interval: '20s' } });
    expect(created.status).toBe(201);
    const first = await nextAssignment(0);
    expect(first).toMatchObject({ intervalSeconds: 20, suspend: false, delete: false, digest: `sha256:${'d'.repeat(64)}` });
    const ready = await eventually('Ready', async () => {
      const t = (await hub.call('GET', '/api/v1/projects/shop/targets/edge')).body;
      return t.phase === 'Ready' ? t : undefined;
    });
    // the agent's schedule: its report's end plus the decision it made (the assignment's interval)
    const [{ finished }] = await hub.app.get(DataSource).query(`SELECT finished_at AS finished FROM runs ORDER BY started_at DESC LIMIT 1`);
    expect(Date.parse(ready.nextRunAt) - new Date(finished).getTime()).toBe(20_000);
    expect((await runs()).map((r) => r.trigger)).toEqual(['Created']);

    // the interval is part of the desired state: a new generation carries it
    expect((await hub.call('PATCH', '/api/v1/projects/shop', { body: { interval: '1m' } })).status).toBe(200);
    const patched = await nextAssignment(first.generation);
    expect(patched.intervalSeconds).toBe(60);

    expect((await hub.call('POST', '/api/v1/projects/shop/reconcile', { body: {} })).status).toBe(202);
    const manual = await nextAssignment(patched.generation);
    expect(manual).toMatchObject({ suspend: false, delete: false });
    expect((await runs()).map((r) => r.trigger)).toEqual(['Manual', 'SpecChanged', 'Created']);

    // the agent's own run of the same assignment: its interval
    const own = a.reportFor(manual, true);
    a.unacked.set(own.reportId, own);
    a.send({ body: { $case: 'report', value: own } });
    await a.until(() => (a.unacked.size === 0 ? true : undefined));
    expect((await runs())[0].trigger).toBe('Interval');
  });

  it('takes status only from the assignment it wrote last: a late, a forged or an unasked-for deletion report sets nothing', async () => {
    const current = assignment()!;
    const view = async () => (await hub.call('GET', '/api/v1/projects/shop/targets/edge')).body;
    const before = await view();
    expect(before.phase).toBe('Ready');
    const send = async (report: ReturnType<SimulatedAgent['reportFor']>) => {
      a.unacked.set(report.reportId, report);
      a.send({ body: { $case: 'report', value: report } });
      await a.until(() => (a.unacked.has(report.reportId) ? undefined : true));
    };
    const stored = (await runs()).length;
    // a failure of an older assignment, reported late; a failure of a generation the hub never wrote
    await send(a.reportFor({ ...current, generation: current.generation - 1 }, false));
    await send(a.reportFor({ ...current, generation: current.generation + 5 }, false));
    // a deletion of the current one, which the hub did not ask for
    await send(a.reportFor({ ...current, delete: true }, true));
    // each is history; none is the Target's status, and the Target stays
    expect((await runs()).length).toBe(stored + 3);
    const after = await view();
    expect([after.phase, after.lastAppliedRevision, after.attempt]).toEqual([before.phase, before.lastAppliedRevision, 0]);
    expect(after.conditions.find((c: { type: string }) => c.type === 'Ready')).toMatchObject({ status: 'True' });
  });

  it('tells the agent to suspend and to resume, and the Target stays Suspended whatever it reports meanwhile', async () => {
    const before = assignment()!;
    expect((await hub.call('POST', '/api/v1/projects/shop/suspend', { body: {} })).status).toBe(200);
    const suspended = await a.until(() => {
      const x = assignment();
      return x && x.generation > before.generation ? x : undefined;
    });
    expect(suspended).toMatchObject({ suspend: true, digest: before.digest });
    await a.until(() => (a.unacked.size === 0 ? true : undefined));
    expect((await hub.call('GET', '/api/v1/projects/shop/targets/edge')).body.phase).toBe('Suspended');

    expect((await hub.call('POST', '/api/v1/projects/shop/resume', { body: {} })).status).toBe(200);
    const resumed = await nextAssignment(suspended.generation);
    expect(resumed.suspend).toBe(false);
    await eventually('Ready again', async () => ((await hub.call('GET', '/api/v1/projects/shop/targets/edge')).body.phase === 'Ready' ? true : undefined));
  });

  it('keeps changes made while the agent is away and sends them in its full set when it is back', async () => {
    const before = assignment()!;
    a.disconnect();
    await eventually('disconnected', async () => ((await hub.call('GET', '/api/v1/clusters/edge')).body.agent.connected ? undefined : true));
    expect((await hub.call('PATCH', '/api/v1/projects/shop', { body: { annotations: { team: 'blue' } } })).status).toBe(200);
    const sets = a.received.filter((m) => m.body?.$case === 'assignments').length;
    a.connect();
    const set = await a.until(() => {
      const all = a.received.filter((m) => m.body?.$case === 'assignments');
      return all.length > sets ? all[all.length - 1] : undefined;
    });
    const held = set.body?.$case === 'assignments' ? set.body.value.assignments.find((x) => x.projectName === 'shop') : undefined;
    expect(held?.generation).toBeGreaterThan(before.generation);
    expect(held?.annotations).toMatchObject({ team: 'blue' });
  });

  it('deletes through a deletion assignment: the agent reports the instances gone, then the Target and the Project go', async () => {
    const before = assignment()!;
    expect((await hub.call('DELETE', '/api/v1/projects/shop?instances=delete')).status).toBe(202);
    const deleting = await a.until(() => {
      const x = assignment();
      return x && x.generation > before.generation ? x : undefined;
    });
    expect(deleting.delete).toBe(true);
    await eventually('the Project gone', async () => ((await hub.call('GET', '/api/v1/projects/shop')).status === 404 ? true : undefined));
    expect(await hub.app.get(DataSource).query(`SELECT id FROM targets`)).toEqual([]);
  });
});
