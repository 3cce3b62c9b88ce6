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

  /** One Project on `n` due agent clusters; their leases, claimed by hub-1. */
  async function claimed(n: number): Promise<Lease[]> {
    const [{ id: projectId }] = await database.ds.query(`INSERT INTO projects (name, namespace, source_repository, service_account_name) VALUES ('shop', 'shop', 'oci://127.0.0.1:1/shop', 'shop') RETURNING id`);
    const clusters: string[] = [];
    for (let i = 0; i < n; i++) {
      const [{ id: clusterId }] = await database.ds.query(`INSERT INTO clusters (name, mode) VALUES ($1, 'agent') RETURNING id`, [`edge-${i}`]);
      await database.ds.query(`INSERT INTO targets (project_id, cluster_id, next_run_at) VALUES ($1, $2, now() - interval '1 second')`, [projectId, clusterId]);
      clusters.push(clusterId);
    }
    const got = await leases.claimForAgents('hub-1', n, 60_000, [], clusters);
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
    expect(await leases.finishRun(single, { runId: one!.id, startedAt: one!.startedAt, report: ok, observedGeneration: 1, agentReportId: 'r-single' })).toBe(true);
    expect(
      await batch.finishRuns([
        { lease: held, outcome: { runId: a!.id, startedAt: a!.startedAt, report: ok, observedGeneration: 1, agentReportId: 'r-batch' }, whenHeld: async () => void whenHeld.push(held.targetId) },
        { lease: stolen, outcome: { runId: a!.id, startedAt: a!.startedAt, report: ok, observedGeneration: 1 }, whenHeld: async () => void whenHeld.push(stolen.targetId) },
      ]),
    ).toEqual([true, false]);
    expect(whenHeld).toEqual([held.targetId]);
    expect(await targetRow(held.targetId)).toEqual(await targetRow(single.targetId));
    expect(await targetRow(held.targetId)).toMatchObject({ phase: 'Ready', last_applied_revision: R1, lease_owner: null, next_in_min: 10 });
    const runs: Array<{ result: string; agent_report_id: string }> = await database.ds.query(`SELECT result, agent_report_id FROM runs ORDER BY agent_report_id`);
    expect(runs).toEqual([
      { result: 'Succeeded', agent_report_id: 'r-batch' },
      { result: 'Succeeded', agent_report_id: 'r-single' },
    ]);
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

  it('records an agent run\'s assignment with its start, under the lease epoch, in the batch and the single write alike', async () => {
    const [a, b, c, push] = await claimed(4);
    const stale = { ...b, epoch: b.epoch - 1 };
    expect(await batch.startRuns([
      { lease: a, row: { ...start, agentDigest: 'sha256:aa' } },
      { lease: stale, row: { ...start, agentDigest: 'sha256:bb' } },
      { lease: push, row: start },
    ])).toEqual([expect.objectContaining({ id: expect.any(String) }), null, expect.objectContaining({ id: expect.any(String) })]);
    expect(await leases.startRun(c, { ...start, agentDigest: null })).not.toBeNull();
    const rows: Array<{ id: string; agent_generation: number | null; agent_digest: string | null }> = await database.ds.query(`SELECT id, agent_generation, agent_digest FROM targets`);
    const row = (id: string) => rows.find((r) => r.id === id);
    expect(row(a.targetId)).toMatchObject({ agent_generation: a.epoch, agent_digest: 'sha256:aa' });
    // a lease no longer held records nothing; a run without an assignment leaves what was recorded
    expect(row(b.targetId)).toMatchObject({ agent_generation: null, agent_digest: null });
    expect(row(push.targetId)).toMatchObject({ agent_generation: null, agent_digest: null });
    // a deletion's assignment carries no digest: its generation is still what the agent holds
    expect(row(c.targetId)).toMatchObject({ agent_generation: c.epoch, agent_digest: null });
  });
});
