import { shopRunReport, useLeaseDatabase } from '../../test/lease-fixtures';
import { TargetsRepository } from '../repositories/targets.repository';
import { LeaseRepository, type Lease } from './lease.repository';

// The lease and wave-advance rules on the harness PostgreSQL, driven by hand:
// rows are written as a replica would leave them, so each race is replayed
// deterministically instead of hoped for under load.

const R1 = 'stable@sha256:1111111111111111111111111111111111111111111111111111111111111111';
const R2 = 'stable@sha256:2222222222222222222222222222222222222222222222222222222222222222';

describe('LeaseRepository and wave advance on PostgreSQL', () => {
  const database = useLeaseDatabase();
  let leases: LeaseRepository;
  let targets: TargetsRepository;

  beforeAll(() => {
    leases = new LeaseRepository(database.ds);
    targets = new TargetsRepository(database.ds.manager);
  });

  /** One Project on the named clusters; returns Target ids by cluster name. */
  async function seed(clusters: string[]): Promise<Record<string, string>> {
    const [{ id: projectId }] = await database.ds.query(`INSERT INTO projects (name, tenant, namespace, source_repository, service_account_name) VALUES ('shop', 'default', 'shop', 'oci://127.0.0.1:1/shop', 'shop') RETURNING id`);
    const ids: Record<string, string> = {};
    for (const name of clusters) {
      const [{ id: clusterId }] = await database.ds.query(`INSERT INTO clusters (name, mode) VALUES ($1, 'push') RETURNING id`, [name]);
      const [{ id }] = await database.ds.query(`INSERT INTO targets (project_id, cluster_id, next_run_at) VALUES ($1, $2, now() - interval '1 second') RETURNING id`, [projectId, clusterId]);
      ids[name] = id;
    }
    return ids;
  }

  async function row(id: string): Promise<{ due: boolean; next_in_ms: number; namespaces: string[]; last_applied_revision: string | null; attempt: number }> {
    const [r] = await database.ds.query(
      `SELECT next_run_at <= now() AS due, (extract(epoch from next_run_at - now()) * 1000)::int AS next_in_ms, namespaces, last_applied_revision, attempt FROM targets WHERE id = $1`,
      [id],
    );
    return r;
  }

  const report = (revision: string, ok: boolean, attempt = 0) => shopRunReport(revision, ok, { attempt, namespaces: ['shop', 'shop-extra'] });

  async function runToEnd(lease: Lease, revision: string) {
    const started = await leases.startRun(lease, { generation: 1, revision, trigger: 'Created', conditions: [], phase: 'Reconciling' });
    return leases.finishRun(lease, { runId: started!.id, startedAt: started!.startedAt, report: report(revision, true), observedGeneration: 1 });
  }

  it('rewrites claimed Targets on their own pages, leaving the indexes alone', async () => {
    // more Targets than one full page holds, with leases of an earlier claim that ran out (as after their first run):
    // with pages full, a claim moves most of them to new pages and adds an entry to every index for each
    const ids = Object.values(await seed(Array.from({ length: 200 }, (_, i) => `c${i}`)));
    await database.ds.query(`UPDATE targets SET lease_owner = 'hub-0', lease_expires_at = now() - interval '1 second', lease_epoch = 1`);
    await database.ds.query(`VACUUM targets`);
    const pages = async () => new Map<string, number>((await database.ds.query(`SELECT id, (ctid::text::point)[0] AS page FROM targets`)).map((r: { id: string; page: number }) => [r.id, r.page]));
    const before = await pages();
    expect(new Set(before.values()).size).toBeGreaterThan(1);
    expect(await leases.claim('hub-1', 1000, 60_000)).toHaveLength(ids.length);
    const after = await pages();
    // a few at each page's edge may still move (about 2 of every page's 22 since Targets carry their count keys);
    // with pages full (no fillfactor) 190 of the 200 did
    expect(ids.filter((id) => after.get(id) !== before.get(id)).length).toBeLessThan(ids.length / 10);
  });

  it('never claims a Target this replica is still running, even once its lease has run out', async () => {
    const ids = await seed(['a', 'b']);
    const claimed = await leases.claim('hub-1', 10, 60_000);
    expect(claimed.map((c) => c.targetId).sort()).toEqual([ids.a, ids.b].sort());
    // both leases lapse (a stalled event loop, a slow database) while the runs go on
    await database.ds.query(`UPDATE targets SET lease_expires_at = now() - interval '1 second'`);
    const again = await leases.claim('hub-1', 10, 60_000, [ids.a]);
    expect(again.map((c) => c.targetId)).toEqual([ids.b]);
    // another replica may take it over: that is what the fencing epoch is for
    expect((await leases.claim('hub-2', 10, 60_000)).map((c) => c.targetId)).toEqual([ids.a]);
  });

  it('never claims a Target of an agent cluster: its agent runs it', async () => {
    const ids = await seed(['edge', 'core']);
    await database.ds.query(`UPDATE clusters SET mode = 'agent' WHERE name = 'edge'`);
    expect((await leases.claim('hub-1', 10, 60_000)).map((c) => c.targetId)).toEqual([ids.core]);
    expect(await leases.queueDepth()).toBe(0);
  });

  it('a wave opening never makes due a Target that has just finished on that revision', async () => {
    const ids = await seed(['prod']);
    const [lease] = await leases.claim('hub-1', 1, 60_000);
    // the replica advancing the wave read the Target before this run finished ...
    expect(await runToEnd(lease, R2)).toBe(true);
    // ... and asks for it afterwards: the row itself says it is already there
    await targets.advanceTo([ids.prod], R2);
    expect(await row(ids.prod)).toMatchObject({ due: false, last_applied_revision: R2 });
    expect((await row(ids.prod)).next_in_ms).toBeGreaterThan(590_000);
  });

  it('a Target in flight on its pinned revision when its wave opens runs again at once; one that ran the new revision does not', async () => {
    const ids = await seed(['pinned', 'current']);
    const claims = await leases.claim('hub-1', 2, 60_000);
    const lease = (id: string) => claims.find((c) => c.targetId === id)!;
    await targets.advanceTo([ids.pinned, ids.current], R2);
    expect(await runToEnd(lease(ids.pinned), R1)).toBe(true);
    expect(await runToEnd(lease(ids.current), R2)).toBe(true);
    expect(await row(ids.pinned)).toMatchObject({ due: true, last_applied_revision: R1 });
    expect(await row(ids.current)).toMatchObject({ due: false, last_applied_revision: R2 });
  });

  it('stores the namespaces the engine reported and schedules the next run by the decision, on the database clock', async () => {
    const ids = await seed(['c']);
    const [lease] = await leases.claim('hub-1', 1, 60_000);
    const started = await leases.startRun(lease, { generation: 1, revision: R1, trigger: 'Created', conditions: [], phase: 'Reconciling' });
    const failed = report(R1, false, 2);
    expect(failed.decision).toEqual({ action: 'retry', attempt: 3, afterMs: 4000 });
    expect(await leases.finishRun(lease, { runId: started!.id, startedAt: started!.startedAt, report: failed, observedGeneration: 1 })).toBe(true);
    const r = await row(ids.c);
    expect(r).toMatchObject({ due: false, namespaces: ['shop', 'shop-extra'], last_applied_revision: null, attempt: 3 });
    const [run] = await database.ds.query(`SELECT (extract(epoch from t.next_run_at - r.finished_at) * 1000)::int AS gap, r.result, r.errors FROM runs r JOIN targets t ON t.id = r.target_id`);
    expect(run).toMatchObject({ gap: 4000, result: 'Failed' });
    expect(run.errors).toEqual([expect.objectContaining({ reason: 'ReconciliationFailed', retryable: true })]);
  });
});
