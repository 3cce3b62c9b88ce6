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
    const [{ id: projectId }] = await database.ds.query(`INSERT INTO projects (name, namespace, source_repository, service_account_name) VALUES ('shop', 'shop', 'oci://127.0.0.1:1/shop', 'shop') RETURNING id`);
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
    // a few at a page's edge may still move; with pages full (no fillfactor) 190 of the 200 did
    expect(ids.filter((id) => after.get(id) !== before.get(id)).length).toBeLessThan(ids.length / 20);
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

  it("advances a Project's Targets and, in the same write, claims its free ones on this replica's agent clusters", async () => {
    const ids = await seed(['held', 'running', 'free1', 'free2', 'elsewhere', 'current']);
    const [{ project_id: projectId }] = await database.ds.query(`SELECT project_id FROM targets WHERE id = $1`, [ids.held]);
    const clusterOf = new Map<string, string>((await database.ds.query(`SELECT id, cluster_id FROM targets`)).map((r: { id: string; cluster_id: string }) => [r.id, r.cluster_id]));
    await database.ds.query(`UPDATE targets SET next_run_at = now() + interval '1 hour'`);
    await database.ds.query(`UPDATE targets SET lease_owner = 'hub-2', lease_expires_at = now() + interval '1 minute', lease_epoch = 4 WHERE id = $1`, [ids.held]);
    await database.ds.query(`UPDATE targets SET last_applied_revision = $2 WHERE id = $1`, [ids.current, R2]);
    // 'elsewhere' is connected to another replica
    const agentClusters = ['held', 'running', 'free1', 'free2', 'current'].map((n) => clusterOf.get(ids[n])!);
    const terms = { owner: 'hub-1', ttlMs: 60_000, agentClusters, inFlight: [ids.running] };

    const claimed = await leases.advanceProjectClaiming(projectId, R2, { ...terms, limit: 10 });
    expect(claimed.map((c) => c.targetId).sort()).toEqual([ids.free1, ids.free2].sort());
    expect(claimed.map((c) => [c.owner, c.epoch, c.takenOverFrom])).toEqual([['hub-1', 1, null], ['hub-1', 1, null]]);
    // with what their assignments need, so nothing reads the claimed rows again before they go out
    const [{ group_name: group }] = await database.ds.query(`SELECT group_name FROM clusters WHERE name = 'free1'`);
    expect(claimed.find((c) => c.targetId === ids.free1)!.assignment).toEqual({
      id: ids.free1, projectId, removalRequestedAt: null, lastAppliedRevision: null, cluster: { id: clusterOf.get(ids.free1), name: 'free1', groupName: group },
    });
    for (const name of ['held', 'running', 'elsewhere']) expect(await row(ids[name])).toMatchObject({ due: true });
    // the claimed ones carry the advance in their lease: their next run time is left alone (see the HOT test below)
    for (const name of ['free1', 'free2', 'current']) expect(await row(ids[name])).toMatchObject({ due: false });
    const [held] = await database.ds.query(`SELECT lease_owner, lease_epoch, advance_to_revision FROM targets WHERE id = $1`, [ids.held]);
    expect(held).toEqual({ lease_owner: 'hub-2', lease_epoch: 4, advance_to_revision: R2 });
    const [free] = await database.ds.query(`SELECT lease_owner, advance_to_revision FROM targets WHERE id = $1`, [ids.free1]);
    expect(free).toEqual({ lease_owner: 'hub-1', advance_to_revision: R2 });
    // what it left is the tick's to claim
    expect((await leases.claim('hub-1', 10, 60_000, [ids.running])).map((c) => c.targetId)).toEqual([ids.elsewhere]);
  });

  it("rewrites the Targets an advance claims in place, without new index entries (HOT)", async () => {
    const ids = Object.values(await seed(Array.from({ length: 200 }, (_, i) => `c${i}`)));
    const [{ project_id: projectId }] = await database.ds.query(`SELECT project_id FROM targets WHERE id = $1`, [ids[0]]);
    const agentClusters = (await database.ds.query(`SELECT cluster_id FROM targets`)).map((r: { cluster_id: string }) => r.cluster_id);
    // as after a run: the components it reported, next run in an hour, the lease given back; the table rewritten as it
    // settles (half of each page free). The advance's revision then makes each row longer by its length.
    const components = report(R1, true).components;
    await database.ds.query(`UPDATE targets SET next_run_at = now() + interval '1 hour', last_applied_revision = $1, components = $2::jsonb`, [R1, JSON.stringify(components)]);
    await database.ds.query(`VACUUM FULL targets`);
    const claimed = await leases.advanceProjectClaiming(projectId, R2, { owner: 'hub-1', ttlMs: 60_000, agentClusters, inFlight: [], limit: 1000 });
    expect(claimed).toHaveLength(ids.length);
    // a heap-only tuple (infomask2 bit 0x8000) is a version no index points to: the indexes were left alone
    await database.ds.query(`CREATE EXTENSION IF NOT EXISTS pageinspect`);
    const versions: Array<{ id: string; heap_only: boolean }> = await database.ds.query(
      `SELECT t.id, (h.t_infomask2 & 32768) <> 0 AS heap_only
       FROM targets t, LATERAL heap_page_items(get_raw_page('targets', ((t.ctid::text::point)[0])::int)) h
       WHERE h.lp = ((t.ctid::text::point)[1])::int`,
    );
    const heapOnly = new Set(versions.filter((v) => v.heap_only).map((v) => v.id));
    // each page is half full and every row on it grows by the revision, so the last row or two of a page do not
    // fit beside the old versions (145 of 200 stayed here); when the claim changed next_run_at, none did
    expect(ids.filter((id) => heapOnly.has(id)).length).toBeGreaterThan(ids.length / 2);
  });

  it("makes due an advance's claim whose lease lapsed, and a released one, but not one still held", async () => {
    const ids = await seed(['lapsed', 'held', 'released', 'plain']);
    const [{ project_id: projectId }] = await database.ds.query(`SELECT project_id FROM targets WHERE id = $1`, [ids.held]);
    const agentClusters = (await database.ds.query(`SELECT cluster_id FROM targets`)).map((r: { cluster_id: string }) => r.cluster_id);
    await database.ds.query(`UPDATE targets SET next_run_at = now() + interval '1 hour'`);
    const claimed = await leases.advanceProjectClaiming(projectId, R2, { owner: 'hub-1', ttlMs: 60_000, agentClusters, inFlight: [], limit: 10 });
    expect(claimed).toHaveLength(4);
    const leaseOf = (id: string) => claimed.find((c) => c.targetId === id)!;
    // hub-1 dies holding 'lapsed'; gives 'released' back without a result (its agent went away); runs 'plain' to the end
    await database.ds.query(`UPDATE targets SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [ids.lapsed]);
    expect(await leases.release(leaseOf(ids.released))).toBe(true);
    expect(await runToEnd(leaseOf(ids.plain), R2)).toBe(true);
    expect(await row(ids.released)).toMatchObject({ due: true });
    expect(await row(ids.lapsed)).toMatchObject({ due: false });

    expect(await leases.makeLapsedAdvancesDue()).toBe(1);
    for (const name of ['lapsed', 'released']) expect(await row(ids[name])).toMatchObject({ due: true });
    for (const name of ['held', 'plain']) expect(await row(ids[name])).toMatchObject({ due: false });
    const taken = await leases.claim('hub-2', 10, 60_000);
    expect(taken.map((c) => [c.targetId, c.takenOverFrom]).sort()).toEqual([[ids.lapsed, 'hub-1'], [ids.released, null]].sort());
    expect(await leases.makeLapsedAdvancesDue()).toBe(0);
  });

  it('claims no more with an advance than its limit, in id order', async () => {
    const ids = Object.values(await seed(['a', 'b', 'c']));
    const [{ project_id: projectId }] = await database.ds.query(`SELECT project_id FROM targets WHERE id = $1`, [ids[0]]);
    const agentClusters = (await database.ds.query(`SELECT cluster_id FROM targets`)).map((r: { cluster_id: string }) => r.cluster_id);
    const claimed = await leases.advanceProjectClaiming(projectId, R2, { owner: 'hub-1', ttlMs: 60_000, agentClusters, inFlight: [], limit: 2 });
    expect(claimed.map((c) => c.targetId)).toEqual([...ids].sort().slice(0, 2));
    expect(await leases.advanceProjectClaiming(projectId, R2, { owner: 'hub-1', ttlMs: 60_000, agentClusters, inFlight: [], limit: 0 })).toEqual([]);
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
