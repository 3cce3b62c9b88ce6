import { buildRunReport, failedRunResult, UnexpectedRunError } from '@flotilla/engine';
import { randomBytes } from 'node:crypto';
import { harnessEnv } from '../../../../test/harness/env';
import { DataSource } from 'typeorm';
import type { SchedulerConfig } from '../config/hub-config';
import { createTempDataDir, createTestDatabase, type TestDatabase } from '../../test/databases';
import { launch, startTestHub } from '../../test/hub';
import { addFakeClusters, CountingResolver, eventually, fastScheduler, overlaps, pushTag, RecordingRunner, repositoryUrl, schedulerHubConfig } from '../../test/scheduler-fixtures';
import { dataSourceOptions } from '../database/data-source';
import { LeaseRepository } from './lease.repository';
import { SchedulerService } from './scheduler.service';
import { SourcePoller } from './sources/source-poller';

// The scheduler on the harness PostgreSQL: several hub replicas (each its own
// app and DataSource) share one database, as in production.

type Hub = Awaited<ReturnType<typeof launch>> & { runner: RecordingRunner; resolver: CountingResolver };

const encryptionKeys = `k1:${randomBytes(32).toString('base64')}`;
const adminToken = `adm_${randomBytes(16).toString('hex')}`;

describe('scheduler on PostgreSQL', () => {
  let db: TestDatabase;
  let tmp: { dir: string; cleanup(): void };
  let hubs: Hub[] = [];
  let repo: string;

  async function startHubs(n: number, scheduler: Partial<SchedulerConfig> = {}): Promise<Hub[]> {
    const started: Hub[] = [];
    for (let i = 0; i < n; i++) {
      const config = schedulerHubConfig(db.url, tmp.dir, { adminToken, encryptionKeys }, { hubId: `hub-${i}`, ...scheduler });
      const runner = new RecordingRunner(config.scheduler.hubId);
      const resolver = new CountingResolver();
      const hub = await launch(config, { scheduler: { targetRunner: runner, tagResolver: resolver } });
      started.push({ ...hub, runner, resolver });
    }
    hubs.push(...started);
    return started;
  }

  const addClusters = addFakeClusters;

  async function createProject(hub: Hub, name: string, extra: Record<string, unknown> = {}): Promise<void> {
    const res = await hub.call('POST', '/api/v1/projects', {
      body: { name, namespace: 'apps', source: { repository: repositoryUrl(repo), tag: 'stable' }, targets: { groups: ['default', 'staging', 'prod'] }, interval: '10m', ...extra },
    });
    expect(res.status).toBe(201);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function targets(hub: Hub, project: string): Promise<any[]> {
    const res = await hub.call('GET', `/api/v1/projects/${project}/targets`);
    expect(res.status).toBe(200);
    return res.body.items;
  }

  async function allReady(hub: Hub, project: string, revision: string): Promise<true | undefined> {
    const list = await targets(hub, project);
    return list.length > 0 && list.every((t) => t.phase === 'Ready' && t.lastAppliedRevision === revision) ? true : undefined;
  }

  beforeEach(async () => {
    db = await createTestDatabase();
    tmp = createTempDataDir();
    repo = `sched-${randomBytes(4).toString('hex')}`;
  });

  afterEach(async () => {
    await Promise.allSettled(hubs.map((h) => h.stop()));
    hubs = [];
    await db.drop();
    tmp.cleanup();
  });

  it('three replicas share the Targets and never run one Target twice at once', async () => {
    const digest = await pushTag(repo, 'stable');
    const [a, b, c] = await startHubs(3, { concurrency: 1 });
    await addClusters(a, [['c1', 'default'], ['c2', 'default'], ['c3', 'default'], ['c4', 'default']]);
    await createProject(a, 'shop');
    await eventually('every Target Ready', () => allReady(a, 'shop', `stable@${digest}`));
    // Manual reconciles through every replica, some while runs are going.
    // Each next request goes in once a run that the previous one caused has ended, so requests land while others still run.
    const finished = () => hubs.reduce((n, h) => n + h.runner.runs.length, 0);
    for (let round = 0; round < 8; round++) {
      const before = finished();
      expect((await [a, b, c][round % 3].call('POST', '/api/v1/projects/shop/reconcile')).status).toBe(202);
      await eventually('a run after the request', async () => (finished() > before ? true : undefined));
    }
    // settled: no request left to serve, nothing leased, nothing due
    const ds = a.app.get(DataSource);
    await eventually('runs to settle', async () => {
      const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM targets WHERE reconcile_requested_at IS NOT NULL OR lease_owner IS NOT NULL OR next_run_at <= now() OR phase <> 'Ready'`);
      return n === 0 ? true : undefined;
    });
    const recorded = hubs.flatMap((h) => h.runner.runs);
    expect(recorded.length).toBeGreaterThanOrEqual(8);
    expect(overlaps(recorded)).toEqual([]);
    expect(new Set(recorded.map((r) => r.owner)).size).toBeGreaterThanOrEqual(2);

    // The Run rows tell the same story: Manual triggers, no overlap, per-instance counts.
    const rows: Array<{ target: string; start: number; end: number }> = [];
    for (const cluster of ['c1', 'c2', 'c3', 'c4']) {
      const runs = (await a.call('GET', `/api/v1/projects/shop/targets/${cluster}/runs?limit=100`)).body.items;
      expect(runs[runs.length - 1]).toMatchObject({ trigger: 'Created', result: 'Succeeded', revision: `stable@${digest}` });
      expect(runs.some((r: { trigger: string }) => r.trigger === 'Manual')).toBe(true);
      expect(runs[0].instances[0]).toMatchObject({ name: 'web', action: 'applied', counts: { created: 0, configured: 1, unchanged: 1, deleted: 0, skipped: 0 } });
      for (const r of runs) rows.push({ target: cluster, start: Date.parse(r.startedAt), end: Date.parse(r.finishedAt) });
    }
    expect(overlaps(rows)).toEqual([]);

    const events = (await a.call('GET', '/api/v1/projects/shop/events?limit=200')).body.items;
    expect(events.some((e: { reason: string; message: string }) => e.reason === 'InstanceApplied' && e.message.includes('module oci://example/web@1.0.0'))).toBe(true);

    const metrics = (await Promise.all(hubs.map((h) => h.call('GET', '/metrics')))).map((r) => r.text).join('\n');
    expect(metrics).toMatch(/timoni_instance_info\{[^}]*instance_name="web"[^}]*project_name="shop"[^}]*project_revison="stable@sha256:[0-9a-f]{64}"[^}]*\} 1/);
    expect(metrics).toMatch(/timoni_instance_reconcile_duration_seconds_count\{[^}]*project_component="app"/);
    expect(metrics).toMatch(/flotilla_target_reconciles_total\{result="success"\} [1-9]/);
    expect(metrics).toMatch(/flotilla_kube_api_requests_total\{code="200",method="PATCH",path="\/apis\/apps\/v1\/namespaces\/\{namespace\}\/deployments\/\{name\}"\} [1-9]/);
    expect(metrics).toMatch(/flotilla_scheduler_queue_depth \d/);
  });

  it('takes over a lease whose holder stopped renewing, and fences the old holder out', async () => {
    const digest = await pushTag(repo, 'stable');
    const [hub] = await startHubs(1, { enabled: false });
    await addClusters(hub, [['c1', 'default']]);
    await createProject(hub, 'web');
    await hub.app.get(SourcePoller).poll();

    // A replica that claims the Target, starts a run, then goes silent.
    const ghostDs = new DataSource(await dataSourceOptions({ kind: 'postgres', url: db.url }));
    await ghostDs.initialize();
    try {
      const ghost = new LeaseRepository(ghostDs);
      const claimedAt = Date.now();
      const [claim] = await ghost.claim('ghost', 10, 1000);
      expect(claim).toMatchObject({ owner: 'ghost', takenOverFrom: null });
      const ghostRun = await ghost.startRun(claim, { generation: 1, revision: `stable@${digest}`, trigger: 'Created', phase: 'Reconciling', conditions: [] });
      expect(ghostRun).not.toBeNull();
      expect(await ghost.claim('other', 10, 1000)).toEqual([]); // held: nobody else gets it

      const live = await startHubs(1, { hubId: 'hub-live' });
      const run = await eventually('the live replica to run it', async () => live[0].runner.runs.find((r) => r.target === 'web/c1'));
      expect(run.owner).toBe('hub-live');
      expect(run.start).toBeGreaterThanOrEqual(claimedAt + 1000); // only after the ghost's lease expired
      await eventually('Ready', () => allReady(live[0], 'web', `stable@${digest}`));

      // The old holder wakes up: its renewal and its result are refused.
      expect(await ghost.renew(claim, 1000)).toBe(false);
      const stale = failedRunResult({ project: { name: 'web', namespace: 'web', source: { repository: 'oci://x/web', tag: 'stale', path: 'project.cue' }, serviceAccountName: 'web', annotations: {} }, cluster: { name: 'c1', group: '' } }, new UnexpectedRunError('stale result'), new Date());
      const written = await ghost.finishRun(claim, { runId: ghostRun!.id, startedAt: ghostRun!.startedAt, report: buildRunReport(stale, { attempt: 8, intervalMs: 1000 }), observedGeneration: 1 });
      expect(written).toBe(false);
      const target = (await targets(live[0], 'web'))[0];
      expect(target).toMatchObject({ phase: 'Ready', lastAppliedRevision: `stable@${digest}`, attempt: 0 });

      const runs = (await live[0].call('GET', '/api/v1/projects/web/targets/c1/runs')).body.items;
      const abandoned = runs.find((r: { id: string }) => r.id === ghostRun!.id);
      expect(abandoned).toMatchObject({ result: 'Abandoned', leaseOwner: 'ghost' });
      expect(abandoned.error).toMatch(/ghost stopped renewing its lease.*taken over by hub-live/);
      const metrics = (await live[0].call('GET', '/metrics')).text;
      expect(metrics).toMatch(/flotilla_scheduler_lease_takeovers_total 1/);
    } finally {
      await ghostDs.destroy();
    }
  });

  it('retries failures with exponential backoff visible in the Target status, then recovers', async () => {
    const digest = await pushTag(repo, 'stable');
    const [hub] = await startHubs(1);
    hub.runner.failing.add('c1');
    await addClusters(hub, [['c1', 'default']]);
    await createProject(hub, 'api');
    const failing = await eventually('three failed attempts', async () => {
      const t = (await targets(hub, 'api'))[0];
      return t.attempt >= 3 ? t : undefined;
    });
    expect(failing.phase).toBe('Failed');
    expect(failing.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Ready', status: 'False', reason: 'ApplyFailed' }),
        expect.objectContaining({ type: 'Reconciling', status: 'True', reason: 'ProgressingWithRetry' }),
      ]),
    );
    const runs = (await hub.call('GET', '/api/v1/projects/api/targets/c1/runs?limit=100')).body.items.filter((r: { result: string }) => r.result === 'Failed');
    // nextRunAt = last failure + 200 ms × 2^(attempt-1), capped at 1600 ms (jitter off)
    const last = runs[0];
    const attempt = failing.attempt;
    const expected = Math.min(1600, 200 * 2 ** (attempt - 1));
    const latest = (await targets(hub, 'api'))[0];
    if (latest.attempt === attempt) expect(Date.parse(latest.nextRunAt) - Date.parse(last.finishedAt)).toBe(expected);
    expect(last).toMatchObject({ error: 'component app, instance web: apply: apply failed on c1', trigger: 'Retry' });
    expect(last.errors).toEqual([expect.objectContaining({ reason: 'ApplyFailed', step: 'apply', component: 'app', instance: 'web', retryable: true })]);
    // each retry waited at least its doubled delay after the failure before it
    // (a lower bound: a busy machine only makes the waits longer)
    const oldestFirst = [...runs].reverse() as { startedAt: string; finishedAt: string }[];
    oldestFirst.slice(1).forEach((run, i) => {
      const waited = Date.parse(run.startedAt) - Date.parse(oldestFirst[i].finishedAt);
      expect(waited).toBeGreaterThanOrEqual(Math.min(1600, 200 * 2 ** i) - 5);
    });

    hub.runner.failing.delete('c1');
    await eventually('recovery', () => allReady(hub, 'api', `stable@${digest}`), 10_000);
    expect((await targets(hub, 'api'))[0]).toMatchObject({ attempt: 0 });
    const metrics = (await hub.call('GET', '/metrics')).text;
    expect(metrics).toMatch(/flotilla_target_reconciles_total\{result="failure"\} [3-9]/);
  });

  it('rolls a new revision out in waves, halts on a failure and continues once it is fixed', async () => {
    const d1 = await pushTag(repo, 'stable');
    const [hub] = await startHubs(1, { concurrency: 4 });
    await addClusters(hub, [['s1', 'staging'], ['s2', 'staging'], ['p1', 'prod']]);
    await createProject(hub, 'wave', { rollout: { groups: ['staging', 'prod'] } });
    await eventually('first revision everywhere', () => allReady(hub, 'wave', `stable@${d1}`));
    const firstP1 = hub.runner.runs.find((r) => r.target === 'wave/p1')!;
    const lastStaging = Math.max(...hub.runner.runs.filter((r) => r.target !== 'wave/p1' && r.digest === d1).map((r) => r.end));
    expect(firstP1.start).toBeGreaterThanOrEqual(lastStaging); // prod waited for staging

    // A new revision that fails on one staging cluster: prod must not get it.
    const d2 = await pushTag(repo, 'stable');
    hub.runner.failing.add(`s2@${d2}`);
    await eventually('s2 failing on the new revision', async () => {
      const s2 = (await targets(hub, 'wave')).find((t) => t.cluster === 's2');
      return s2.phase === 'Failed' && s2.attempt >= 2 ? true : undefined;
    });
    const list = await targets(hub, 'wave');
    expect(list.find((t) => t.cluster === 's1')).toMatchObject({ phase: 'Ready', lastAppliedRevision: `stable@${d2}` });
    expect(list.find((t) => t.cluster === 'p1')).toMatchObject({ lastAppliedRevision: `stable@${d1}` });
    expect(hub.runner.runs.some((r) => r.target === 'wave/p1' && r.digest === d2)).toBe(false);

    // Fixed (the retry succeeds): prod follows by itself.
    hub.runner.failing.delete(`s2@${d2}`);
    await eventually('second revision everywhere', () => allReady(hub, 'wave', `stable@${d2}`), 10_000);
    const p1d2 = hub.runner.runs.find((r) => r.target === 'wave/p1' && r.digest === d2)!;
    const s2d2 = hub.runner.runs.filter((r) => r.target === 'wave/s2' && r.digest === d2 && r.ok);
    expect(p1d2.start).toBeGreaterThanOrEqual(s2d2[0].end);
    const p1runs = (await hub.call('GET', '/api/v1/projects/wave/targets/p1/runs')).body.items;
    expect(p1runs[0]).toMatchObject({ trigger: 'NewRevision', revision: `stable@${d2}`, result: 'Succeeded' });
  });

  it('resolves each repository and tag once per poll, however many Projects and replicas share it', async () => {
    await pushTag(repo, 'stable');
    await pushTag(repo, 'edge');
    const replicas = await startHubs(3, { enabled: false, sourcePollMs: 60_000 });
    await addClusters(replicas[0], [['c1', 'default'], ['c2', 'default']]);
    for (const name of ['p1', 'p2', 'p3', 'p4']) await createProject(replicas[0], name);
    await createProject(replicas[0], 'p5', { source: { repository: repositoryUrl(repo), tag: 'edge' } });
    const results = await Promise.all(replicas.map((h) => h.app.get(SourcePoller).poll()));
    expect(results.reduce((n, r) => n + r.resolutions, 0)).toBe(2);
    expect(replicas.reduce((n, h) => n + h.resolver.total(), 0)).toBe(2);
    expect(results.flatMap((r) => r.changed).sort()).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    // not due again until the poll interval has passed
    expect((await replicas[1].app.get(SourcePoller).poll()).resolutions).toBe(0);
    const events = (await replicas[0].call('GET', '/api/v1/projects/p3/events')).body.items;
    expect(events.some((e: { reason: string }) => e.reason === 'NewRevision')).toBe(true);
  });

  it('resolves with the Project\'s registry credentials and shows why a tag cannot be resolved', async () => {
    const digest = await pushTag(repo, 'stable', undefined, { auth: true });
    const [hub] = await startHubs(1);
    await addClusters(hub, [['c1', 'default']]);
    const auth = harnessEnv().registryAuth;
    const source = { repository: `oci://${auth.host}/${repo}`, tag: 'stable' };
    await createProject(hub, 'private', { source, registryCredentials: { username: auth.username, password: auth.password } });
    await createProject(hub, 'anonymous', { source });
    await eventually('the Project with credentials Ready', () => allReady(hub, 'private', `stable@${digest}`));
    const t = await eventually('the one without to say why', async () => {
      const [target] = await targets(hub, 'anonymous');
      return target.conditions.some((c: { reason: string }) => c.reason === 'SourceResolveFailed') ? target : undefined;
    });
    expect(t.phase).toBe('Pending');
    expect(t.conditions[0].message).toMatch(/cannot resolve oci:\/\/.*:stable: authentication .* failed/);
    const events = (await hub.call('GET', '/api/v1/projects/anonymous/events')).body.items;
    expect(events.filter((e: { reason: string }) => e.reason === 'SourceResolveFailed')).toHaveLength(1);
    expect(hub.runner.runs.map((r) => r.target)).toEqual(['private/c1']);
  });

  it('honours suspend and removes instances from every cluster before deleting a Project', async () => {
    const digest = await pushTag(repo, 'stable');
    const [hub] = await startHubs(1);
    await addClusters(hub, [['c1', 'default'], ['c2', 'default']]);
    await createProject(hub, 'gone', { suspend: true });
    // two whole ticks after creation: the Targets were due and passed over
    const scheduler = hub.app.get(SchedulerService);
    const from = scheduler.completedTicks;
    await eventually('two scheduler ticks', async () => (scheduler.completedTicks >= from + 2 ? true : undefined));
    expect(hub.runner.runs).toEqual([]);
    expect((await hub.call('POST', '/api/v1/projects/gone/resume')).status).toBe(200);
    await eventually('Ready after resume', () => allReady(hub, 'gone', `stable@${digest}`));

    expect((await hub.call('DELETE', '/api/v1/projects/gone?instances=delete')).status).toBe(202);
    await eventually('the Project to be gone', async () => ((await hub.call('GET', '/api/v1/projects/gone')).status === 404 ? true : undefined));
    expect(hub.runner.runs.filter((r) => r.kind === 'delete').map((r) => r.target).sort()).toEqual(['gone/c1', 'gone/c2']);
  });

  it('at shutdown stops claiming, aborts runs past the grace period and releases their leases', async () => {
    await pushTag(repo, 'stable');
    // abort comes at half the grace; the other half is for the run to unwind and give its lease back
    const [hub] = await startHubs(1, { shutdownGraceMs: 2000 });
    hub.runner.delayMs = 10_000;
    await addClusters(hub, [['c1', 'default']]);
    await createProject(hub, 'slow');
    await eventually('the run to start', async () => {
      const runs = (await hub.call('GET', '/api/v1/projects/slow/targets/c1/runs')).body.items;
      return runs.some((r: { result: string }) => r.result === 'Running') ? true : undefined;
    });
    await hub.stop();
    hubs = hubs.filter((h) => h !== hub);

    const [after] = await startHubs(1, { enabled: false });
    const run = (await after.call('GET', '/api/v1/projects/slow/targets/c1/runs')).body.items[0];
    expect(run).toMatchObject({ result: 'Abandoned', leaseOwner: 'hub-0' });
    expect(run.error).toMatch(/interrupted.*shutting down/);
    const ds = after.app.get(DataSource);
    expect(await ds.query(`SELECT lease_owner, next_run_at <= now() AS due FROM targets`)).toEqual([{ lease_owner: null, due: true }]);
  });
});

describe('scheduler on embedded PGlite', () => {
  it('makes a Project converge in a single hub', async () => {
    const repo = `sched-${randomBytes(4).toString('hex')}`;
    const digest = await pushTag(repo, 'stable');
    const runner = new RecordingRunner('solo');
    const hub = await startTestHub('pglite', { scheduler: fastScheduler({ hubId: 'solo' }) }, { scheduler: { targetRunner: runner, tagResolver: new CountingResolver() } });
    try {
      expect((await hub.call('POST', '/api/v1/clusters', { body: { name: 'c1', mode: 'push', endpoint: { server: 'https://127.0.0.1:1' }, credentials: { token: 't' } } })).status).toBe(201);
      const created = await hub.call('POST', '/api/v1/projects', { body: { name: 'solo', namespace: 'apps', source: { repository: repositoryUrl(repo), tag: 'stable' }, targets: { names: ['c1'] } } });
      expect(created.status).toBe(201);
      const target = await eventually('Ready', async () => {
        const t = (await hub.call('GET', '/api/v1/projects/solo/targets/c1')).body;
        return t.phase === 'Ready' ? t : undefined;
      });
      expect(target).toMatchObject({ lastAppliedRevision: `stable@${digest}`, observedGeneration: 1, attempt: 0 });
      expect(runner.runs).toHaveLength(1);
    } finally {
      await hub.close();
    }
  });
});
