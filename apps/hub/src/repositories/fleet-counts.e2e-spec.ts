import { Pool, type PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { DATABASE_KINDS, startTestHub, type TestHub } from '../../test/hub';

// The Target and cluster counts the Project views and the fleet summary read
// are kept by the database in the transactions that change what they count.
// These change Targets, clusters and agent links through the API and behind
// the hub's back (plain SQL, as another replica would), from several writers
// at once on PostgreSQL, and compare the counters with a recount of the rows.

/** What target_counts must hold: a recount of every Target from its row, cluster and agent link. */
const RECOUNT_TARGETS = `SELECT t.project_id::text, c.group_name AS cluster_group, t.phase,
    (t.phase = 'Failed' AND t.conditions @> '[{"type": "Stalled", "status": "True"}]') AS stalled,
    (c.mode = 'agent' AND NOT EXISTS (SELECT 1 FROM agent_links al WHERE al.cluster_id = c.id AND al.connected)) AS stale,
    (t.phase = 'Ready' AND NOT t.conditions @> '[{"type": "Healthy", "status": "True"}]') AS unhealthy,
    count(*)::int AS n
  FROM targets t JOIN clusters c ON c.id = t.cluster_id GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`;
const COUNTED_TARGETS = `SELECT project_id::text, cluster_group, phase, stalled, stale, unhealthy, n FROM target_counts WHERE n <> 0 ORDER BY 1, 2, 3, 4, 5, 6`;
const RECOUNT_CLUSTERS = `SELECT group_name, count(*)::int AS clusters, (count(*) FILTER (WHERE reachable IS false))::int AS unreachable FROM clusters GROUP BY 1 ORDER BY 1`;
const COUNTED_CLUSTERS = `SELECT group_name, clusters, unreachable FROM cluster_group_counts WHERE clusters <> 0 OR unreachable <> 0 ORDER BY 1`;

const HEALTHY = '[{"type": "Ready", "status": "True"}, {"type": "Healthy", "status": "True"}]';
const UNHEALTHY = '[{"type": "Ready", "status": "True"}, {"type": "Healthy", "status": "False"}]';

interface Query {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

async function rowsOf(db: Query, sql: string): Promise<unknown[]> {
  const res = (await db.query(sql)) as unknown[] | { rows: unknown[] };
  return Array.isArray(res) ? res : res.rows;
}

async function expectCountsExact(db: Query): Promise<void> {
  expect(await rowsOf(db, COUNTED_TARGETS)).toEqual(await rowsOf(db, RECOUNT_TARGETS));
  expect(await rowsOf(db, COUNTED_CLUSTERS)).toEqual(await rowsOf(db, RECOUNT_CLUSTERS));
  // nothing is left over from committed transactions
  expect(await rowsOf(db, 'SELECT id FROM target_count_deltas UNION ALL SELECT id FROM cluster_count_deltas')).toEqual([]);
}

describe.each(DATABASE_KINDS)('fleet counts on %s', (_label, kind) => {
  let hub: TestHub;
  let sql: DataSource;
  beforeAll(async () => {
    hub = await startTestHub(kind);
    sql = hub.app.get(DataSource);
    for (const [i, name] of ['fc-a', 'fc-b', 'fc-c', 'fc-d'].entries()) {
      const body = { name, group: i < 2 ? 'east' : 'west', labels: { tier: i % 2 ? 'silver' : 'gold' }, mode: 'agent' };
      expect((await hub.call('POST', '/api/v1/clusters', { body })).status).toBe(201);
    }
    for (const [name, targets] of [['fc-all', { labelSelector: { matchLabels: {} } }], ['fc-gold', { labelSelector: { matchLabels: { tier: 'gold' } } }]] as const) {
      const body = { name, namespace: 'apps', source: { repository: 'oci://127.0.0.1:5000/fc/app' }, targets };
      expect((await hub.call('POST', '/api/v1/projects', { body })).status).toBe(201);
    }
  });
  afterAll(() => hub?.close());

  const project = async (name: string) => (await hub.call('GET', `/api/v1/projects/${name}`)).body.status;
  const summary = async () => (await hub.call('GET', '/api/v1/fleet/summary')).body;

  it('counts the Targets the API created, on agent clusters whose agents never connected', async () => {
    expect(await project('fc-all')).toMatchObject({ targets: 4, ready: 0, phases: { Pending: 4 } });
    expect(await project('fc-gold')).toMatchObject({ targets: 2, phases: { Pending: 2 } });
    const s = await summary();
    expect(s.clusters).toBe(4);
    expect(s.targets).toMatchObject({ Stale: 6, Ready: 0, Progressing: 0 });
    expect(s.groups.map((g: { group: string; clusters: number }) => [g.group, g.clusters])).toEqual([['east', 2], ['west', 2]]);
    await expectCountsExact(sql);
  });

  it('follows phase and condition changes, agents connecting and disconnecting, and clusters changing group or reachability', async () => {
    await sql.query(`UPDATE targets SET phase = 'Ready', conditions = '${HEALTHY}' WHERE project_id = (SELECT id FROM projects WHERE name = 'fc-all')`);
    expect(await project('fc-all')).toMatchObject({ targets: 4, ready: 4, phases: { Ready: 4 } });
    await sql.query(`UPDATE agent_links SET connected = true WHERE cluster_id IN (SELECT id FROM clusters WHERE name IN ('fc-a', 'fc-c'))`);
    let s = await summary();
    // fc-a and fc-c are connected: their Targets show their phase; fc-all is Ready there, fc-gold Pending
    expect(s.targets).toMatchObject({ Ready: 2, Progressing: 2, Stale: 2 });
    await sql.query(`UPDATE targets SET phase = 'Failed', conditions = '[{"type": "Stalled", "status": "True", "reason": "BuildFailed", "message": "m", "lastTransitionTime": "2026-01-01T00:00:00Z"}]'
      WHERE cluster_id = (SELECT id FROM clusters WHERE name = 'fc-a')`);
    s = await summary();
    expect(s.targets).toMatchObject({ Stalled: 2, Ready: 1, Progressing: 1, Stale: 2 });
    expect(await project('fc-all')).toMatchObject({ ready: 3, phases: { Ready: 3, Failed: 1 } });
    await sql.query(`UPDATE agent_links SET connected = false WHERE cluster_id = (SELECT id FROM clusters WHERE name = 'fc-a')`);
    expect((await summary()).targets).toMatchObject({ Stalled: 0, Stale: 4 });
    expect((await hub.call('PATCH', '/api/v1/clusters/fc-c', { body: { group: 'north' } })).status).toBe(200);
    await sql.query(`UPDATE clusters SET reachable = false WHERE name IN ('fc-b', 'fc-d')`);
    s = await summary();
    expect(s.groups).toEqual([
      expect.objectContaining({ group: 'east', clusters: 2, unreachable: 1 }),
      expect.objectContaining({ group: 'north', clusters: 1, unreachable: 0, targets: expect.objectContaining({ Ready: 1, Progressing: 1 }) }),
      expect.objectContaining({ group: 'west', clusters: 1, unreachable: 1 }),
    ]);
    await expectCountsExact(sql);
  });

  it('counts a Target Ready but not Healthy as Unhealthy until its Healthy condition turns True', async () => {
    const onFcB = `project_id = (SELECT id FROM projects WHERE name = 'fc-all') AND cluster_id = (SELECT id FROM clusters WHERE name = 'fc-b')`;
    await sql.query(`UPDATE agent_links SET connected = true WHERE cluster_id = (SELECT id FROM clusters WHERE name = 'fc-b')`);
    const before = (await summary()).targets;
    await sql.query(`UPDATE targets SET phase = 'Ready', conditions = '${UNHEALTHY}' WHERE ${onFcB}`);
    let s = await summary();
    expect(s.targets.Unhealthy).toBe(before.Unhealthy + 1);
    expect(s.targets.Ready).toBe(before.Ready - 1);
    // the Project's phases still say what its Targets' phases are
    expect(await project('fc-all')).toMatchObject({ phases: { Ready: 3 } });
    await expectCountsExact(sql);
    await sql.query(`UPDATE targets SET conditions = '${HEALTHY}' WHERE ${onFcB}`);
    s = await summary();
    expect(s.targets).toEqual(before);
    await sql.query(`UPDATE agent_links SET connected = false WHERE cluster_id = (SELECT id FROM clusters WHERE name = 'fc-b')`);
    await expectCountsExact(sql);
  });

  it('follows Targets, clusters, agent links and Projects going, and a rolled back transaction changes nothing', async () => {
    // a relabel moves fc-c out of fc-gold: a Target that never ran goes at once
    expect((await hub.call('PATCH', '/api/v1/clusters/fc-c', { body: { labels: { tier: 'silver' } } })).status).toBe(200);
    expect(await project('fc-gold')).toMatchObject({ targets: 1 });
    await sql.query(`DELETE FROM agent_links WHERE cluster_id = (SELECT id FROM clusters WHERE name = 'fc-c')`);
    expect((await hub.call('DELETE', '/api/v1/clusters/fc-d?force=true')).status).toBe(204);
    expect(await project('fc-all')).toMatchObject({ targets: 3 });
    await expect(
      sql.transaction(async (m) => {
        await m.query(`UPDATE targets SET phase = 'Reconciling'`);
        await m.query(`DELETE FROM clusters WHERE name = 'fc-a'`);
        throw new Error('rolled back on purpose');
      }),
    ).rejects.toThrow('rolled back on purpose');
    expect(await project('fc-all')).toMatchObject({ targets: 3, phases: { Failed: 1, Ready: 2 } });
    await expectCountsExact(sql);
    expect((await hub.call('DELETE', '/api/v1/projects/fc-gold?instances=orphan')).status).toBe(200);
    expect(await rowsOf(sql, `SELECT 1 FROM target_counts tc LEFT JOIN projects p ON p.id = tc.project_id WHERE p.id IS NULL`)).toEqual([]);
    expect((await summary()).targets).toMatchObject({ Stale: 3 });
    await expectCountsExact(sql);
  });

  if (kind === 'postgres') {
    it('stays exact at every commit while several writers change Targets, clusters and agent links at once', async () => {
      const pool = new Pool({ connectionString: hub.config.databaseUrl, max: 10 });
      try {
        await pool.query(`INSERT INTO clusters (name, group_name, labels, mode) SELECT 'fc-w' || i, 'g' || (i % 3), '{}', CASE WHEN i % 2 = 0 THEN 'agent' ELSE 'push' END FROM generate_series(1, 40) i`);
        await pool.query(`INSERT INTO agent_links (cluster_id) SELECT id FROM clusters WHERE name LIKE 'fc-w%' AND mode = 'agent'`);
        await pool.query(`INSERT INTO targets (project_id, cluster_id) SELECT p.id, c.id FROM projects p, clusters c WHERE p.name = 'fc-all' AND c.name LIKE 'fc-w%' AND c.name NOT LIKE '%0'`);
        const phases = ['Pending', 'Reconciling', 'Ready', 'Failed', 'Suspended'];
        let seed = 7;
        const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
        const inTransaction = async (work: (c: PoolClient) => Promise<void>) => {
          const c = await pool.connect();
          try {
            await c.query('BEGIN');
            await work(c);
            await c.query('COMMIT');
          } catch (err) {
            await c.query('ROLLBACK');
            throw err;
          } finally {
            c.release();
          }
        };
        const cluster = () => `fc-w${1 + random(40)}`;
        const writes: Array<() => Promise<void>> = [
          // a batch of runs finishing: Targets of some clusters change phase, in id order as the scheduler writes
          () => inTransaction(async (c) => {
            const ids = [cluster(), cluster(), cluster()];
            await c.query(`UPDATE targets t SET phase = $1::text, conditions = CASE WHEN $1::text = 'Failed' AND $3 THEN '[{"type": "Stalled", "status": "True"}]'::jsonb WHEN $1::text = 'Ready' AND $3 THEN '${HEALTHY}'::jsonb ELSE '[]'::jsonb END
              FROM (SELECT t.id FROM targets t JOIN clusters c ON c.id = t.cluster_id WHERE c.name = ANY($2) ORDER BY t.id FOR UPDATE OF t) l WHERE t.id = l.id`, [phases[random(5)], ids, random(2) === 0]);
          }),
          // a replica's batch of link writes: agents connecting and others disconnecting, a statement each
          () => inTransaction(async (c) => {
            await c.query(`UPDATE agent_links SET connected = true WHERE cluster_id IN (SELECT id FROM clusters WHERE name = ANY($1))`, [[cluster(), cluster()]]);
            await c.query(`UPDATE agent_links SET connected = false WHERE cluster_id IN (SELECT id FROM clusters WHERE name = ANY($1))`, [[cluster(), cluster()]]);
          }),
          () => inTransaction((c) => c.query(`UPDATE clusters SET group_name = $1, reachable = $2 WHERE name = $3`, [`g${random(3)}`, random(2) === 0, cluster()]).then(() => undefined)),
          // membership: Targets go, and come back (several at once, in cluster order as the hub inserts them)
          () => inTransaction(async (c) => {
            await c.query(`DELETE FROM targets WHERE cluster_id = (SELECT id FROM clusters WHERE name = $1)`, [cluster()]);
            await c.query(`INSERT INTO targets (project_id, cluster_id, phase) SELECT p.id, c.id, $2 FROM projects p, clusters c
              WHERE p.name = 'fc-all' AND c.name = ANY($1) ORDER BY c.id ON CONFLICT DO NOTHING`, [[cluster(), cluster(), cluster()], phases[random(5)]]);
          }),
        ];
        // every snapshot a reader can take shows counters equal to a recount
        let snapshots = 0;
        let writing = true;
        const reader = (async () => {
          while (writing) {
            await inTransaction(async (c) => {
              await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
              expect((await c.query(COUNTED_TARGETS)).rows).toEqual((await c.query(RECOUNT_TARGETS)).rows);
              expect((await c.query(COUNTED_CLUSTERS)).rows).toEqual((await c.query(RECOUNT_CLUSTERS)).rows);
            });
            snapshots++;
          }
        })();
        const writers = Array.from({ length: 6 }, async () => {
          for (let i = 0; i < 60; i++) await writes[random(writes.length)]();
        });
        try {
          await Promise.all(writers);
        } finally {
          writing = false;
          await reader;
        }
        expect(snapshots).toBeGreaterThan(0);
        await expectCountsExact(pool);
      } finally {
        await pool.end();
      }
    });
  }
});
