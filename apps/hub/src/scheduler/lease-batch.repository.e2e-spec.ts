import { shopRunReport, useLeaseDatabase } from '../../test/lease-fixtures';
import { LeaseBatchRepository } from './lease-batch.repository';
import { type Lease, LeaseRepository } from './lease.repository';

// The batched run writes on the harness PostgreSQL: the same rows as the
// single writes, and the same fencing, row by row within one batch.

const R1 = 'stable@sha256:1111111111111111111111111111111111111111111111111111111111111111';

describe('LeaseBatchRepository on PostgreSQL', () => {
  const database = useLeaseDatabase();
  let leases: LeaseRepository;
  let batch: LeaseBatchRepository;

  beforeAll(() => {
    leases = new LeaseRepository(database.ds);
    batch = new LeaseBatchRepository(database.ds);
  });

  /** One Project on `n` due push clusters; their leases, claimed by hub-1. */
  async function claimed(n: number): Promise<Lease[]> {
    const [{ id: projectId }] = await database.ds.query(`INSERT INTO projects (name, tenant, namespace, source_repository, service_account_name) VALUES ('shop', 'default', 'shop', 'oci://127.0.0.1:1/shop', 'shop') RETURNING id`);
    const clusters: string[] = [];
    for (let i = 0; i < n; i++) {
      const [{ id: clusterId }] = await database.ds.query(`INSERT INTO clusters (name, mode) VALUES ($1, 'push') RETURNING id`, [`edge-${i}`]);
      await database.ds.query(`INSERT INTO targets (project_id, cluster_id, next_run_at) VALUES ($1, $2, now() - interval '1 second')`, [projectId, clusterId]);
      clusters.push(clusterId);
    }
    const got = await leases.claim('hub-1', n, 60_000);
    expect(got).toHaveLength(clusters.length);
    return got.sort((a, b) => a.targetId.localeCompare(b.targetId));
  }

  const report = (ok: boolean) => shopRunReport(R1, ok);

  const start = { generation: 1, revision: R1, trigger: 'Created', conditions: [], phase: 'Reconciling' as const };
  const targetRow = async (id: string) =>
    (
      await database.ds.query(
        `SELECT phase, conditions, last_applied_revision, attempt, observed_generation, namespaces, lease_owner, (extract(epoch from next_run_at - now()) / 60)::int AS next_in_min FROM targets WHERE id = $1`,
        [id],
      )
    )[0];

  it('starts and finishes runs as the single writes do, and only where the lease is still held', async () => {
    const [single, held, stolen] = await claimed(3);
    // another replica took one over (its lease ran out here): the batch must not write its run
    await database.ds.query(`UPDATE targets SET lease_owner = 'hub-2', lease_epoch = lease_epoch + 1 WHERE id = $1`, [stolen.targetId]);

    const one = await leases.startRun(single, start);
    const [a, lost] = await batch.startRuns([
      { lease: held, row: start },
      { lease: stolen, row: start },
    ]);
    expect(a).not.toBeNull();
    expect(lost).toBeNull();
    expect(await database.ds.query(`SELECT count(*)::int AS n FROM runs WHERE target_id = $1`, [stolen.targetId])).toEqual([{ n: 0 }]);

    const ok = report(true);
    const whenHeld: string[] = [];
    expect(await leases.finishRun(single, { runId: one!.id, startedAt: one!.startedAt, report: ok, observedGeneration: 1 })).toBe(true);
    expect(
      await batch.finishRuns([
        { lease: held, outcome: { runId: a!.id, startedAt: a!.startedAt, report: ok, observedGeneration: 1 }, whenHeld: async () => void whenHeld.push(held.targetId) },
        { lease: stolen, outcome: { runId: a!.id, startedAt: a!.startedAt, report: ok, observedGeneration: 1 }, whenHeld: async () => void whenHeld.push(stolen.targetId) },
      ]),
    ).toEqual([true, false]);
    expect(whenHeld).toEqual([held.targetId]);
    expect(await targetRow(held.targetId)).toEqual(await targetRow(single.targetId));
    expect(await targetRow(held.targetId)).toMatchObject({ phase: 'Ready', last_applied_revision: R1, lease_owner: null, next_in_min: 10 });
    const runs: Array<{ target_id: string; result: string }> = await database.ds.query(`SELECT target_id, result FROM runs ORDER BY target_id`);
    expect(runs).toEqual([single.targetId, held.targetId].sort().map((id) => ({ target_id: id, result: 'Succeeded' })));
  });

  it('keeps a failed run\'s last known components and counts its attempt, as the single write does', async () => {
    const [single, batched] = await claimed(2);
    const failed = report(false);
    const one = await leases.startRun(single, start);
    const [two] = await batch.startRuns([{ lease: batched, row: start }]);
    await leases.finishRun(single, { runId: one!.id, startedAt: one!.startedAt, report: failed, observedGeneration: 1 });
    await batch.finishRuns([{ lease: batched, outcome: { runId: two!.id, startedAt: two!.startedAt, report: failed, observedGeneration: 1 } }]);
    expect(await targetRow(batched.targetId)).toEqual(await targetRow(single.targetId));
    expect(await targetRow(batched.targetId)).toMatchObject({ phase: 'Failed', attempt: 1 });
  });

  it('notes progress as the single write does: only under the lease held and while the Target is Reconciling', async () => {
    const [single, batched, stolen, finished] = await claimed(4);
    for (const l of [single, batched, stolen, finished]) await leases.startRun(l, start);
    await database.ds.query(`UPDATE targets SET lease_epoch = lease_epoch + 1 WHERE id = $1`, [stolen.targetId]);
    await database.ds.query(`UPDATE targets SET phase = 'Ready' WHERE id = $1`, [finished.targetId]);
    const note: Parameters<LeaseRepository['progress']>[1] = {
      conditions: [{ type: 'Reconciling', status: 'True', reason: 'Progressing', message: 'applying', lastTransitionTime: new Date(0).toISOString() }],
      components: [{ name: 'app', status: 'Running', durationMs: 5, declared: [], instances: [] }],
    };
    expect(await leases.progress(single, note)).toBe(true);
    expect(await batch.progressAll([batched, stolen, finished].map((lease) => ({ lease, row: note })))).toEqual([true, false, false]);
    const row = async (id: string) => (await database.ds.query(`SELECT conditions, components FROM targets WHERE id = $1`, [id]))[0];
    expect(await row(batched.targetId)).toEqual(await row(single.targetId));
    expect((await row(batched.targetId)).components).toEqual(note.components);
    expect((await row(stolen.targetId)).components).not.toEqual(note.components);
    expect((await row(finished.targetId)).components).not.toEqual(note.components);
  });

  it('renews the leases still held and says which were lost', async () => {
    const [a, b] = await claimed(2);
    await database.ds.query(`UPDATE targets SET lease_epoch = lease_epoch + 1 WHERE id = $1`, [b.targetId]);
    expect(await batch.renewAll([a, b], 120_000)).toEqual([true, false]);
    const [r] = await database.ds.query(`SELECT (extract(epoch from lease_expires_at - now()))::int AS s FROM targets WHERE id = $1`, [a.targetId]);
    expect(r.s).toBeGreaterThan(100);
  });

  it('does not wait for a row another transaction is writing: it stays held, and is renewed next time', async () => {
    const [a, b] = await claimed(2);
    const writer = database.ds.createQueryRunner();
    await writer.connect();
    await writer.startTransaction();
    try {
      await writer.query(`SELECT id FROM targets WHERE id = $1 FOR UPDATE`, [b.targetId]);
      // answered while the other transaction still holds b's row
      expect(await batch.renewAll([a, b], 120_000)).toEqual([true, true]);
    } finally {
      await writer.rollbackTransaction();
      await writer.release();
    }
    const rows: Array<{ id: string; s: number }> = await database.ds.query(`SELECT id, (extract(epoch from lease_expires_at - now()))::int AS s FROM targets`);
    expect(rows.find((r) => r.id === a.targetId)!.s).toBeGreaterThan(100);
    expect(rows.find((r) => r.id === b.targetId)!.s).toBeLessThan(61);
  });

});
