import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The fleet state `Unhealthy`: a Target applied (phase Ready) whose applied
 * objects are not healthy (no `Healthy=True` condition) is counted apart from
 * the Ready ones, so the overview never shows it as plain Ready. target_counts
 * and its deltas get the key column `unhealthy`; the counting triggers and the
 * commit-time fold (migration 1764830000000) are redefined with it, and the
 * counters are recounted. The rule is the one targets.healthy_since follows
 * (migration 1764850000000) and apps/hub/src/fleet/fleet-state.ts states.
 */
export class UnhealthyState1764870000000 implements MigrationInterface {
  name = 'UnhealthyState1764870000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['target_counts', 'target_count_deltas']) {
      await q.query(`ALTER TABLE "${table}" ADD "unhealthy" boolean NOT NULL DEFAULT false`);
      await q.query(`ALTER TABLE "${table}" ALTER COLUMN "unhealthy" DROP DEFAULT`);
    }
    await q.query(`ALTER TABLE "target_counts" DROP CONSTRAINT "pk_target_counts"`);
    await q.query(`ALTER TABLE "target_counts" ADD CONSTRAINT "pk_target_counts" PRIMARY KEY ("project_id", "cluster_group", "phase", "stalled", "stale", "unhealthy")`);
    await defineCounting(q, true);
    await recount(q, true);
  }

  async down(q: QueryRunner): Promise<void> {
    await defineCounting(q, false);
    await q.query(`DELETE FROM "target_count_deltas"`);
    await q.query(`DELETE FROM "target_counts"`);
    await q.query(`ALTER TABLE "target_counts" DROP CONSTRAINT "pk_target_counts"`);
    await q.query(`ALTER TABLE "target_counts" ADD CONSTRAINT "pk_target_counts" PRIMARY KEY ("project_id", "cluster_group", "phase", "stalled", "stale")`);
    for (const table of ['target_counts', 'target_count_deltas']) await q.query(`ALTER TABLE "${table}" DROP COLUMN "unhealthy"`);
    await recount(q, false);
  }
}

/** Ready without a Healthy=True condition, of a Target row (unqualified columns). */
const UNHEALTHY = `(phase = 'Ready' AND NOT conditions @> '[{"type": "Healthy", "status": "True"}]')`;
const STALLED = `(phase = 'Failed' AND conditions @> '[{"type": "Stalled", "status": "True"}]')`;

/** The statement triggers' functions and the commit-time fold, keyed with `unhealthy` or (down) without. */
async function defineCounting(q: QueryRunner, withUnhealthy: boolean): Promise<void> {
  const keyCols = withUnhealthy ? 'phase, stalled, count_stale, unhealthy' : 'phase, stalled, count_stale';
  const delta = (rows: string, sign: number) =>
    `SELECT project_id, count_group, phase, ${STALLED} AS stalled, count_stale${withUnhealthy ? `, ${UNHEALTHY} AS unhealthy` : ''}, ${sign} AS n FROM ${rows}`;
  const targetDeltas = (parts: string[]) => `BEGIN
      INSERT INTO target_count_deltas (txid, project_id, cluster_group, phase, stalled, stale${withUnhealthy ? ', unhealthy' : ''}, n)
      SELECT txid_current(), project_id, count_group, ${keyCols}, sum(n) FROM (${parts.join(' UNION ALL ')}) d
      GROUP BY project_id, count_group, ${keyCols} HAVING sum(n) <> 0;
      RETURN NULL;
    END`;
  await q.query(`CREATE OR REPLACE FUNCTION "target_counts_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$ ${targetDeltas([delta('new_rows', 1)])} $$`);
  await q.query(`CREATE OR REPLACE FUNCTION "target_counts_updated"() RETURNS trigger LANGUAGE plpgsql AS $$ ${targetDeltas([delta('old_rows', -1), delta('new_rows', 1)])} $$`);
  await q.query(`CREATE OR REPLACE FUNCTION "target_counts_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$ ${targetDeltas([delta('old_rows', -1)])} $$`);

  const counted = withUnhealthy ? 'project_id, cluster_group, phase, stalled, stale, unhealthy' : 'project_id, cluster_group, phase, stalled, stale';
  const groupBy = withUnhealthy ? '1, 2, 3, 4, 5, 6' : '1, 2, 3, 4, 5';
  // as in 1764830000000, the target counts keyed one column wider
  await q.query(`CREATE OR REPLACE FUNCTION "fold_fleet_counts"() RETURNS void LANGUAGE plpgsql AS $$
    DECLARE cid uuid;
    BEGIN
      FOR cid IN SELECT DISTINCT cluster_id FROM cluster_rekeys WHERE txid = txid_current() ORDER BY cluster_id LOOP
        PERFORM 1 FROM targets WHERE cluster_id = cid ORDER BY id FOR UPDATE;
        PERFORM 1 FROM clusters WHERE id = cid FOR NO KEY UPDATE;
        UPDATE targets t SET count_group = t.count_group FROM (SELECT id FROM targets WHERE cluster_id = cid ORDER BY id FOR UPDATE) l WHERE t.id = l.id;
      END LOOP;
      DELETE FROM cluster_rekeys WHERE txid = txid_current();
      WITH d AS (DELETE FROM target_count_deltas WHERE txid = txid_current() RETURNING ${counted}, n)
      INSERT INTO target_counts AS tc (${counted}, n)
      SELECT ${counted.split(', ').map((c) => `d.${c}`).join(', ')}, sum(d.n) FROM d
      WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = d.project_id) -- a deleted Project's counts went with it
      GROUP BY ${groupBy} HAVING sum(d.n) <> 0 ORDER BY ${groupBy}
      ON CONFLICT ON CONSTRAINT "pk_target_counts" DO UPDATE SET n = tc.n + EXCLUDED.n;
      WITH d AS (DELETE FROM cluster_count_deltas WHERE txid = txid_current() RETURNING group_name, clusters, unreachable)
      INSERT INTO cluster_group_counts AS cc (group_name, clusters, unreachable)
      SELECT group_name, sum(clusters), sum(unreachable) FROM d GROUP BY 1 HAVING sum(clusters) <> 0 OR sum(unreachable) <> 0 ORDER BY 1
      ON CONFLICT ON CONSTRAINT "pk_cluster_group_counts" DO UPDATE SET clusters = cc.clusters + EXCLUDED.clusters, unreachable = cc.unreachable + EXCLUDED.unreachable;
    END $$`);
}

/** The Target counters as a recount of the rows (deltas a migration's own statements left are dropped first). */
async function recount(q: QueryRunner, withUnhealthy: boolean): Promise<void> {
  await q.query(`DELETE FROM "target_count_deltas"`);
  await q.query(`DELETE FROM "target_counts"`);
  await q.query(`INSERT INTO "target_counts" ("project_id", "cluster_group", "phase", "stalled", "stale"${withUnhealthy ? ', "unhealthy"' : ''}, "n")
    SELECT "project_id", "count_group", "phase", ${STALLED}, "count_stale"${withUnhealthy ? `, ${UNHEALTHY}` : ''}, count(*)
    FROM "targets" GROUP BY ${withUnhealthy ? '1, 2, 3, 4, 5, 6' : '1, 2, 3, 4, 5'}`);
}
