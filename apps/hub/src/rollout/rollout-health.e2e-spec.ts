import { RegistryClient } from '@flotilla/oci';
import { harnessEnv } from '../../../../test/harness/env';
import { UNPULLABLE_IMAGE } from '../../../../test/harness/kube-nodes';
import { shopProjectFiles, type ShopRevision } from '../../../../test/e2e/fixtures/projects';
import { projectRepository, publishProject, publishWebapp } from '../../../../test/e2e/support/publish';
import { adminClient, deleteNamespaces, DeploymentReadiness, describeWorkloads, prepareTenant, uniqueName } from '../../../../test/e2e/support/spoke';
import { startTestHub, type TestHub } from '../../test/hub';
import { OffsetClock } from '../../test/offset-clock';
import { eventually, fastScheduler } from '../../test/scheduler-fixtures';

// Rollout waves gated on health, end to end: the real engine applies the
// webapp module from the harness registry to the harness API server, whose
// controllers and kwok make a Deployment available (or never, with an image
// that cannot be pulled). The API server is registered three times, one
// cluster per group, each with its instances in a namespace of its own. The
// hub's clock is moved by hand past soaks and progress deadlines.

jest.setTimeout(300_000);

const [, repository, tag] = /^(.*):([^:]+)$/.exec(UNPULLABLE_IMAGE)!;
const CLUSTERS = [['stage-1', 'staging'], ['prod-1', 'production'], ['lab-1', 'lab']] as const;
const MINUTE = 60_000;

describe('rollout waves gated on health and soak', () => {
  const registry = new RegistryClient();
  const kube = adminClient();
  const clock = new OffsetClock();
  const ns = uniqueName('e2e-soak');
  const namespaces = CLUSTERS.map(([c]) => `${ns}-${c}`);
  let hub: TestHub;
  let readiness: DeploymentReadiness;
  let repo: string;
  let base: ShopRevision;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const target = async (cluster: string): Promise<any> => (await hub.call('GET', `/api/v1/projects/shop/targets/${cluster}`)).body;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const rollout = async (): Promise<any> => (await hub.call('GET', '/api/v1/projects/shop/rollout')).body;
  const states = async () => ((await rollout()).waves as Array<{ state: string }>).map((w) => w.state);
  const condition = (t: { conditions: Array<{ type: string; status: string }> }, type: string) => t.conditions.find((c) => c.type === type)?.status;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const runRevisions = async (cluster: string): Promise<string[]> => (await hub.call('GET', `/api/v1/projects/shop/targets/${cluster}/runs?limit=100`)).body.items.map((r: any) => r.revision);
  const publish = async (message: string, extra: Partial<ShopRevision> = {}) => `latest@${await publishProject(registry, repo, shopProjectFiles({ ...base, message, ...extra }))}`;

  async function healthyOn(cluster: string, revision: string): Promise<void> {
    await eventually(`${cluster} Ready and Healthy on ${revision}`, async () => {
      const t = await target(cluster);
      return t.lastAppliedRevision === revision && condition(t, 'Ready') === 'True' && condition(t, 'Healthy') === 'True' ? true : undefined;
    }, 120_000).catch(async (err: Error) => {
      const workloads = (await describeWorkloads(kube, `${ns}-${cluster}`)).join('\n');
      throw new Error(`${err.message}; ${cluster} is ${JSON.stringify(await target(cluster))}\n${workloads}`);
    });
  }

  async function waveStates(expected: string[], what: string): Promise<void> {
    await eventually(what, async () => (JSON.stringify(await states()) === JSON.stringify(expected) ? true : undefined), 120_000);
  }

  beforeAll(async () => {
    await prepareTenant(kube, { namespace: ns, serviceAccount: 'deployer', instanceNamespaces: namespaces });
    readiness = new DeploymentReadiness(kube, () => namespaces, 0).start();
    base = { moduleUrl: await publishWebapp(registry), moduleVersion: '1.0.0', namespace: `${ns}-\\(_cluster)`, infra: ['db'], message: '' };
    repo = projectRepository();
    hub = await startTestHub('postgres', { scheduler: fastScheduler({ tickMs: 250, sourcePollMs: 300, healthRecheckMs: 3000, hubId: 'hub-soak' }) }, { clock });
    const k = harnessEnv().kube;
    for (const [name, group] of CLUSTERS) {
      const created = await hub.call('POST', '/api/v1/clusters', { body: { name, group, mode: 'push', endpoint: { server: k.server, caData: k.caData }, credentials: { token: k.admin.token } } });
      expect(created.status).toBe(201);
    }
  });

  afterAll(async () => {
    readiness?.stop();
    await hub?.close();
    await deleteNamespaces(kube, [ns, ...namespaces]);
    await kube.connection.close();
  });

  it('refuses waves it cannot follow, naming the field', async () => {
    const body = (rollout: unknown) => ({ body: { name: 'bad', namespace: ns, serviceAccountName: 'deployer', source: { repository: repo, tag: 'latest' }, targets: { groups: ['staging'] }, rollout } });
    const cases: Array<[unknown, string]> = [
      [{ groups: ['staging'], waves: [{ group: 'staging' }] }, 'rollout: give either groups or waves'],
      [{ waves: [{ group: 'staging', groups: ['lab'] }] }, 'rollout.waves[0]: give either group or groups'],
      [{ waves: [{ group: 'staging' }, { groups: ['lab', 'staging'] }] }, 'rollout.waves[1]: group staging is already in wave 0'],
      [{ waves: [{ group: 'staging', soak: 'soon' }] }, 'rollout.waves[0].soak: must be a duration'],
      [{ waves: [{ group: 'staging', maxConcurrent: 0 }] }, 'rollout.waves[0].maxConcurrent: must be a whole number from 1'],
      [{ waves: [{ group: 'staging', maxFailures: '150%' }] }, 'rollout.waves[0].maxFailures: must be a whole number from 0'],
      [{ waves: [{ group: 'staging' }], onFailure: 'panic' }, 'rollout.onFailure'],
      [{ waves: [{ group: 'staging', windows: [{ kind: 'allow', schedule: '0 9 * *', duration: '8h' }] }] }, 'rollout.waves[0].windows[0].schedule: must be a cron expression of five fields'],
      [{ waves: [{ group: 'staging', windows: [{ kind: 'sometimes', schedule: '0 9 * * *', duration: '8h' }] }] }, 'rollout.waves[0].windows[0].kind: must be allow or deny'],
    ];
    for (const [spec, problem] of cases) {
      const res = await hub.call('POST', '/api/v1/projects', body(spec));
      expect({ spec, status: res.status }).toEqual({ spec, status: 400 });
      expect(JSON.stringify(res.body)).toContain(problem);
    }
    expect((await hub.call('GET', '/api/v1/projects/bad')).status).toBe(404);
  });

  it('opens each wave only once the one before stayed Ready and Healthy for its soak', async () => {
    const v1 = await publish('v1');
    const created = await hub.call('POST', '/api/v1/projects', {
      body: {
        name: 'shop', namespace: ns, serviceAccountName: 'deployer', source: { repository: repo, tag: 'latest' }, targets: { groups: CLUSTERS.map(([, g]) => g) },
        // each soak longer than the clock was moved before it: the soak counts from when the wave became healthy
        rollout: { waves: [{ group: 'staging', soak: '10m', progressDeadline: '2m' }, { groups: ['production'], soak: '1h' }] },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.rollout).toEqual({ groups: ['staging', 'production'], waves: [{ groups: ['staging'], soak: '10m', progressDeadline: '2m' }, { groups: ['production'], soak: '1h' }], onFailure: 'halt' });

    await healthyOn('stage-1', v1);
    await waveStates(['soaking', 'waiting', 'waiting'], 'staging soaking');
    const view = await rollout();
    expect(view).toMatchObject({ project: 'shop', revision: v1, onFailure: 'halt' });
    expect(view.waves[0]).toMatchObject({ groups: ['staging'], counts: { total: 1, healthy: 1, pending: 0, progressing: 0, failed: 0 }, failureBudget: 0, batchSize: null });
    expect(Date.parse(view.waves[0].soakUntil) - Date.parse(view.waves[0].since)).toBe(10 * MINUTE);
    expect(view.waves[1]).toMatchObject({ state: 'waiting', counts: { total: 1, pending: 1 }, message: `revision ${v1} waits for group staging to soak until ${view.waves[0].soakUntil}` });
    // the lab wave (groups no wave names) waits too
    expect(view.waves[2]).toMatchObject({ groups: [], state: 'waiting', counts: { total: 1, pending: 1 } });
    expect((await target('prod-1')).lastAppliedRevision).toBeNull();

    clock.advance(10 * MINUTE);
    await healthyOn('prod-1', v1);
    await waveStates(['done', 'soaking', 'waiting'], 'production soaking');
    expect((await target('lab-1')).lastAppliedRevision).toBeNull();
    // production moved only after staging's soak ended
    const stage = await target('stage-1');
    expect(await runRevisions('prod-1')).toContain(v1);
    expect(stage.lastAppliedRevision).toBe(v1);

    clock.advance(60 * MINUTE);
    await healthyOn('lab-1', v1);
    await waveStates(['done', 'done', 'done'], 'every wave done');
  });

  it('halts a revision whose Deployment never becomes available in the first wave: later waves never see it', async () => {
    clock.reset();
    const v1 = (await target('prod-1')).lastAppliedRevision as string;
    const broken = await publish('v2', { extraWebValues: `image: {repository: "${repository}", tag: "${tag}"}` });
    // applied, not healthy: Ready=True, Healthy=False, and the next wave stays shut
    const applied = await eventually('the broken revision applied in staging', async () => {
      const t = await target('stage-1');
      return t.lastAppliedRevision === broken && condition(t, 'Healthy') === 'False' ? t : undefined;
    }, 120_000).catch(async (err: Error) => {
      throw new Error(`${err.message}; stage-1 is ${JSON.stringify(await target('stage-1'))}`);
    });
    expect(condition(applied, 'Ready')).toBe('True');
    await waveStates(['progressing', 'waiting', 'waiting'], 'staging progressing on the broken revision');
    expect((await rollout()).waves[1].message).toBe(`revision ${broken} waits for group staging to be Ready and Healthy on it`);

    // past the progress deadline it counts as failed: over the budget of 0, the rollout halts
    clock.advance(3 * MINUTE);
    await waveStates(['failed', 'waiting', 'waiting'], 'staging failed');
    const view = await rollout();
    expect(view.waves[0]).toMatchObject({ counts: { total: 1, failed: 1 }, failureBudget: 0, message: `revision ${broken} waits for group staging to recover: 1 of 1 Target(s) failed, 0 allowed` });
    expect(view.waves[1].message).toBe(view.waves[0].message);
    // a manual run of production corrects drift on the revision it has, and says why it holds
    expect((await hub.call('POST', '/api/v1/projects/shop/reconcile?cluster=prod-1')).status).toBe(202);
    const held = await eventually('production run while held', async () => {
      const t = await target('prod-1');
      const c = t.conditions.find((x: { reason: string }) => x.reason === 'RolloutWaiting');
      return c && c.message.includes(broken) ? { t, c } : undefined;
    }, 60_000);
    expect(held.t.lastAppliedRevision).toBe(v1);
    expect(held.c.message).toBe(`revision ${broken} waits for group staging to recover: 1 of 1 Target(s) failed, 0 allowed; correcting drift on ${v1} meanwhile`);
    expect(await runRevisions('prod-1')).not.toContain(broken);
    expect(await runRevisions('lab-1')).not.toContain(broken);
  });

  it('with onFailure: rollback, takes the failing wave back to the last revision each cluster was healthy on, until a new revision', async () => {
    const v1 = (await target('prod-1')).lastAppliedRevision as string;
    const broken = (await rollout()).revision as string;
    expect((await target('stage-1')).lastAppliedRevision).toBe(broken);
    const patched = await hub.call('PATCH', '/api/v1/projects/shop', { body: { rollout: { waves: [{ group: 'staging', soak: '10m', progressDeadline: '2m' }, { groups: ['production'], soak: '1h' }], onFailure: 'rollback' } } });
    expect(patched.status).toBe(200);
    // the failed wave is rolled back by itself: stage-1 returns to v1, pinned by digest, and is healthy there
    await healthyOn('stage-1', v1);
    const view = await rollout();
    expect(view.rolledBack).toEqual({ revision: broken, wave: 0, by: 'flotilla (automatic: past the failure budget)', at: expect.any(String) });
    expect(view.waves.map((w: { state: string }) => w.state)).toEqual(['rolledBack', 'waiting', 'waiting']);
    expect(view.waves[0].message).toBe(`revision ${broken} waits for group staging to be retried: rolled back after the wave failed`);
    const project = (await hub.call('GET', '/api/v1/projects/shop')).body;
    expect(project.status.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'RolledBack', status: 'True', reason: 'RolloutFailed', message: expect.stringContaining(`revision ${broken} rolled back from wave 0`) })]));
    const events = (await hub.call('GET', '/api/v1/projects/shop/events?limit=200')).body.items as Array<{ reason: string; message: string }>;
    expect(events.filter((e) => e.reason === 'RolledBack')).toHaveLength(1);
    // the later waves never saw it
    expect(await runRevisions('prod-1')).not.toContain(broken);
    expect(await runRevisions('lab-1')).not.toContain(broken);
    expect((await target('prod-1')).lastAppliedRevision).toBe(v1);

    // a new digest of the tag rolls out as usual
    const v3 = await publish('v3');
    await healthyOn('stage-1', v3);
    await waveStates(['soaking', 'waiting', 'waiting'], 'v3 soaking in staging');
    expect((await rollout()).rolledBack).toBeUndefined();
  });
});
