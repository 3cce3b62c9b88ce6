import { CliUser } from '../../../cli/test/run-cli';
import { startTestHub, type TestHub } from '../../test/hub';
import { ProjectsRepository } from '../repositories/projects.repository';
import { RolloutProjectsRepository } from './rollout-projects.repository';
import { addFakeClusters, eventually, fastScheduler, RecordingRunner, SettableResolver } from '../../test/scheduler-fixtures';

// Approvals, holds and retries of a rollout through the API, on the real hub
// and PostgreSQL (the push runs are recorded in-process): who may act, what
// is recorded, and that the waves follow.

jest.setTimeout(120_000);

const digest = (c: string) => `sha256:${c.repeat(64)}`;
const REPO = 'oci://registry.example/team-a/gated';

describe('rollout approvals, holds and retries', () => {
  let hub: TestHub;
  const resolver = new SettableResolver();
  const runner = new RecordingRunner('hub-approvals');
  const token: Record<string, string> = {};

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const target = async (cluster: string): Promise<any> => (await hub.call('GET', `/api/v1/projects/gated/targets/${cluster}`)).body;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const rollout = async (): Promise<any> => (await hub.call('GET', '/api/v1/projects/gated/rollout')).body;
  const on = async (cluster: string, d: string) => eventually(`${cluster} on ${d}`, async () => ((await target(cluster)).lastAppliedRevision === `stable@${d}` ? true : undefined), 30_000);

  beforeAll(async () => {
    hub = await startTestHub('postgres', { scheduler: fastScheduler({ sourcePollMs: 200, hubId: 'hub-approvals' }) }, { scheduler: { targetRunner: runner, tagResolver: resolver } });
    await addFakeClusters(hub, [['s1', 'staging'], ['p1', 'prod'], ['b1', 'team-b']]);
    const tenants = [
      { name: 'team-a', destinations: { groups: ['staging', 'prod'] }, namespaces: ['gated'], serviceAccounts: ['*'], repositories: [REPO] },
      { name: 'team-b', destinations: { groups: ['team-b'] }, namespaces: ['other'], serviceAccounts: ['*'], repositories: ['oci://registry.example/team-b'] },
    ];
    for (const t of tenants) expect((await hub.call('POST', '/api/v1/tenants', { body: t })).status).toBe(201);
    for (const [name, tenant, role] of [['a-op', 'team-a', 'operator'], ['a-view', 'team-a', 'viewer'], ['b-op', 'team-b', 'operator']] as const) {
      const res = await hub.call('POST', '/api/v1/tokens', { body: { name, role, tenant } });
      expect(res.status).toBe(201);
      token[name] = res.body.token;
    }
  });

  afterAll(() => hub?.close());

  it('holds a wave that needs approval until an operator of the tenant approves it, recording who and when', async () => {
    resolver.digest = digest('a');
    const created = await hub.call('POST', '/api/v1/projects', {
      token: token['a-op'],
      body: { name: 'gated', namespace: 'gated', source: { repository: REPO, tag: 'stable' }, targets: { groups: ['staging', 'prod'] }, rollout: { waves: [{ group: 'staging' }, { group: 'prod', approval: true }] } },
    });
    expect(created.status).toBe(201);
    await on('s1', digest('a'));
    const waiting = await eventually('prod awaiting approval', async () => {
      const view = await rollout();
      return view.waves[1]?.state === 'awaitingApproval' ? view : undefined;
    });
    expect(waiting.waves[1]).toMatchObject({ groups: ['prod'], message: `revision stable@${digest('a')} waits for group prod to be approved` });
    expect((await target('p1')).lastAppliedRevision).toBeNull();

    // a viewer of the tenant sees the rollout but may not approve; another tenant's operator does not see the Project
    expect((await hub.call('GET', '/api/v1/projects/gated/rollout', { token: token['a-view'] })).status).toBe(200);
    expect((await hub.call('POST', '/api/v1/projects/gated/rollout/approve', { token: token['a-view'], body: {} })).status).toBe(403);
    // refused exactly as the Project itself is
    const outsider = (await hub.call('GET', '/api/v1/projects/gated', { token: token['b-op'] })).status;
    expect(outsider).toBe(403);
    expect((await hub.call('GET', '/api/v1/projects/gated/rollout', { token: token['b-op'] })).status).toBe(outsider);
    expect((await hub.call('POST', '/api/v1/projects/gated/rollout/approve', { token: token['b-op'], body: {} })).status).toBe(outsider);
    expect((await hub.call('POST', '/api/v1/projects/gated/rollout/hold', { token: token['b-op'] })).status).toBe(outsider);
    // bad input names the field and changes nothing; a wave that needs no approval is a conflict
    const bad = await hub.call('POST', '/api/v1/projects/gated/rollout/approve', { token: token['a-op'], body: { wave: 'first' } });
    expect(bad.status).toBe(400);
    expect(bad.body.problems).toContain('wave: must be a whole number');
    expect((await hub.call('POST', '/api/v1/projects/gated/rollout/approve', { token: token['a-op'], body: { wave: 0 } })).status).toBe(409);
    expect((await rollout()).actions).toEqual([]);

    const approved = await hub.call('POST', '/api/v1/projects/gated/rollout/approve', { token: token['a-op'], body: {} });
    expect(approved.status).toBe(200);
    expect(approved.body.actions).toEqual([{ action: 'approve', revision: `stable@${digest('a')}`, wave: 1, by: 'a-op', at: expect.any(String) }]);
    await on('p1', digest('a'));
    await eventually('every wave done', async () => ((await rollout()).waves.every((w: { state: string }) => w.state === 'done') ? true : undefined));

    // the approval was for that revision: the next one waits again
    resolver.digest = digest('b');
    await on('s1', digest('b'));
    await eventually('prod awaiting approval of b', async () => ((await rollout()).waves[1]?.state === 'awaitingApproval' ? true : undefined));
    expect((await target('p1')).lastAppliedRevision).toBe(`stable@${digest('a')}`);
    expect((await hub.call('POST', '/api/v1/projects/gated/rollout/approve', { token: token['a-op'], body: { wave: 1 } })).status).toBe(200);
    await on('p1', digest('b'));
  });

  it('takes batches and failure budgets as counts or percentages', async () => {
    const created = await hub.call('POST', '/api/v1/projects', {
      token: token['a-op'],
      body: { name: 'batched', namespace: 'gated', source: { repository: REPO, tag: 'stable' }, targets: { groups: ['staging', 'prod'] }, rollout: { waves: [{ groups: ['staging', 'prod'], maxConcurrent: '50%', maxFailures: 1 }], onFailure: 'halt' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.rollout).toEqual({ groups: ['staging', 'prod'], waves: [{ groups: ['staging', 'prod'], maxConcurrent: '50%', maxFailures: 1 }], onFailure: 'halt' });
    const view = await eventually('the batched rollout', async () => {
      const v = (await hub.call('GET', '/api/v1/projects/batched/rollout')).body;
      return v.waves?.length ? v : undefined;
    });
    expect(view.waves[0]).toMatchObject({ groups: ['staging', 'prod'], batchSize: 1, failureBudget: 1, counts: { total: 2 } });
    const patched = await hub.call('PATCH', '/api/v1/projects/batched', { token: token['a-op'], body: { rollout: { waves: [{ group: 'staging', maxConcurrent: 0 }] } } });
    expect(patched.status).toBe(400);
    expect(patched.body.problems).toEqual(['rollout.waves[0].maxConcurrent: must be a whole number from 1 to 1000000, or a percentage such as "25%"']);
    expect((await hub.call('DELETE', '/api/v1/projects/batched?instances=orphan', { token: token['a-op'] })).status).toBe(200);
  });

  it('on hold, starts no cluster on a new revision until a retry', async () => {
    const held = await hub.call('POST', '/api/v1/projects/gated/rollout/hold', { token: token['a-op'] });
    expect(held.status).toBe(200);
    expect(held.body).toMatchObject({ onHold: true });
    expect(held.body.actions.at(-1)).toMatchObject({ action: 'hold', by: 'a-op' });
    resolver.digest = digest('c');
    const view = await eventually('the rollout of c on hold', async () => {
      const v = await rollout();
      return v.revision === `stable@${digest('c')}` && v.waves[0].message ? v : undefined;
    });
    // none of its clusters moved: the paused wave has not started
    expect(view.waves[0]).toMatchObject({ state: 'waiting', counts: { pending: 1 }, message: `revision stable@${digest('c')} waits for group staging to be released: the rollout is on hold` });
    expect((await target('s1')).lastAppliedRevision).toBe(`stable@${digest('b')}`);

    const retried = await hub.call('POST', '/api/v1/projects/gated/rollout/retry', { token: token['a-op'] });
    expect(retried.status).toBe(200);
    expect(retried.body.onHold).toBe(false);
    expect(retried.body.actions.map((a: { action: string }) => a.action)).toEqual(['approve', 'approve', 'hold', 'retry']);
    await on('s1', digest('c'));
  });

  it('is shown and acted on from the command line', async () => {
    const user = new CliUser();
    await user.ok(['login', '--server', hub.url, '--token-stdin', '--name', 'team-a'], { input: `${token['a-op']}\n` });
    const status = await user.ok(['project', 'rollout', 'status', 'gated']);
    expect(status.startsWith(`project/gated: revision stable@${digest('c')}\n`)).toBe(true);
    expect(status).toMatch(/^WAVE\s+GROUPS\s+STATE\s+HEALTHY\s+MOVING\s+FAILED\/BUDGET\s+BATCH\s+SINCE$/m);
    expect(status).toMatch(/^1\s+prod\s+awaitingApproval\s+0\/1\s+0\s+0\/0\s+all/m);
    expect(status).toContain('by a-op on');

    expect(await user.ok(['project', 'rollout', 'hold', 'gated'])).toContain('ON HOLD until `flotilla project rollout retry`');
    expect(JSON.parse(await user.ok(['project', 'rollout', 'status', 'gated', '-o', 'json']))).toMatchObject({ onHold: true });
    const rolled = await user.ok(['project', 'rollout', 'rollback', 'gated']);
    expect(rolled).toMatch(/^ROLLED BACK from wave 0 by a-op at /m);
    expect((await user.run(['project', 'rollout', 'rollback', 'gated'])).code).toBe(1);
    const retried = await user.ok(['project', 'rollout', 'retry', 'gated']);
    expect(retried).not.toContain('ON HOLD');
    expect(retried).not.toContain('ROLLED BACK');

    const bad = await user.run(['project', 'rollout', 'approve', 'gated', '--wave', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--wave "x" is not a wave index');
    const approved = await user.ok(['project', 'rollout', 'approve', 'gated']);
    expect(approved).toMatch(/approve wave 1 by a-op on stable@sha256:c+\n$/);
    await on('p1', digest('c'));
  });

  it('inside a deny window starts no new revision, and drift correction goes on', async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const windowed = async (cluster: string): Promise<any> => (await hub.call('GET', `/api/v1/projects/windowed/targets/${cluster}`)).body;
    const before = resolver.digest;
    const rollout = { waves: [{ group: 'staging' }] };
    const created = await hub.call('POST', '/api/v1/projects', { token: token['a-op'], body: { name: 'windowed', namespace: 'gated', source: { repository: REPO, tag: 'stable' }, targets: { groups: ['staging'] }, rollout } });
    expect(created.status).toBe(201);
    await eventually('windowed on the current digest', async () => ((await windowed('s1')).lastAppliedRevision === `stable@${before}` ? true : undefined));

    const bad = await hub.call('PATCH', '/api/v1/projects/windowed', { token: token['a-op'], body: { rollout: { ...rollout, windows: [{ kind: 'deny', schedule: '0 25 * * *', duration: '1h', timeZone: 'Mars/Olympus' }] } } });
    expect(bad.status).toBe(400);
    expect(bad.body.problems).toEqual(['rollout.windows[0].timeZone: "Mars/Olympus" is not an IANA time zone such as Europe/Berlin']);
    // a deny window open every minute for two: always inside it
    const deny = { kind: 'deny', schedule: '* * * * *', duration: '2m', timeZone: 'Europe/Berlin' };
    const patched = await hub.call('PATCH', '/api/v1/projects/windowed', { token: token['a-op'], body: { rollout: { ...rollout, windows: [deny] } } });
    expect(patched.status).toBe(200);
    expect(patched.body.rollout).toEqual({ groups: ['staging'], waves: [{ groups: ['staging'] }], windows: [deny], onFailure: 'halt' });

    resolver.digest = digest('d');
    const view = await eventually('the new revision held by the window', async () => {
      const v = (await hub.call('GET', '/api/v1/projects/windowed/rollout')).body;
      return v.revision === `stable@${digest('d')}` ? v : undefined;
    });
    expect(view.windowClosed).toBe('inside the deny window deny "* * * * *" for 2m (Europe/Berlin)');
    expect(view.waves[0].message).toBe(`revision stable@${digest('d')} waits for group staging to be in a rollout window: inside the deny window deny "* * * * *" for 2m (Europe/Berlin)`);
    // drift correction: a manual run applies the revision the cluster has
    const runsBefore = runner.runs.filter((r) => r.target === 'windowed/s1').length;
    expect((await hub.call('POST', '/api/v1/projects/windowed/reconcile?cluster=s1', { token: token['a-op'] })).status).toBe(202);
    await eventually('the manual run', async () => (runner.runs.filter((r) => r.target === 'windowed/s1').length > runsBefore ? true : undefined));
    expect(runner.runs.filter((r) => r.target === 'windowed/s1').at(-1)).toMatchObject({ digest: before });
    expect((await windowed('s1')).lastAppliedRevision).toBe(`stable@${before}`);

    // the window goes: the revision starts
    expect((await hub.call('PATCH', '/api/v1/projects/windowed', { token: token['a-op'], body: { rollout } })).status).toBe(200);
    await eventually('windowed on d', async () => ((await windowed('s1')).lastAppliedRevision === `stable@${digest('d')}` ? true : undefined));
  });

  it('records one rollback of a revision however many passes see its wave fail at once', async () => {
    const project = (await hub.app.get(ProjectsRepository).findByName('windowed'))!;
    const repo = hub.app.get(RolloutProjectsRepository);
    const rollback = (by: string) => repo.appendRollback(project.id, { action: 'rollback', revision: 'stable@sha256:ffff', wave: 0, by, at: new Date().toISOString() });
    const first = await Promise.all(['a', 'b', 'c', 'd'].map(rollback));
    expect(first.filter(Boolean)).toHaveLength(1);
    // after a retry of it, it may be rolled back again, once
    await repo.appendAction(project.id, { action: 'retry', revision: 'stable@sha256:ffff', by: 'ops', at: new Date().toISOString() });
    expect((await Promise.all(['e', 'f'].map(rollback))).filter(Boolean)).toHaveLength(1);
    const actions = (await hub.call('GET', '/api/v1/projects/windowed/rollout')).body.actions as Array<{ action: string; revision: string }>;
    expect(actions.filter((a) => a.revision === 'stable@sha256:ffff').map((a) => a.action)).toEqual(['rollback', 'retry', 'rollback']);
  });
});
