import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Counts the read views show, kept by the database in the transactions that
 * change what they count, so no request counts a fleet's worth of rows:
 *
 * - target_counts: Targets per (Project, cluster group, phase, stalled,
 *   stale). Each Target carries the group and staleness it is counted under
 *   (count_group, count_stale), derived by a trigger from its cluster and
 *   agent link when it is inserted (share-locking the cluster's row); a change
 *   of group or mode re-derives them on the cluster's Targets at once, an
 *   agent (dis)connecting at commit (after locking the cluster's row). Every
 *   row version a write removes is subtracted under the key it was added
 *   with, so the counts equal a recount at every commit.
 * - cluster_group_counts: clusters and unreachable clusters per group.
 *
 * Writers never lock a counter mid-transaction: statement triggers append
 * their deltas to *_count_deltas (plain inserts, no conflicts) and a trigger
 * deferred to commit folds the transaction's deltas into the counters in key
 * order, before the membership version (whose function now folds first), so
 * waiting for a counter never closes a cycle with locks already held.
 */
export class FleetCounts1764830000000 implements MigrationInterface {
  name = 'FleetCounts1764830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "targets" ADD "count_group" character varying(63) NOT NULL DEFAULT ''`);
    await q.query(`ALTER TABLE "targets" ADD "count_stale" boolean NOT NULL DEFAULT false`);
    await q.query(`CREATE TABLE "target_counts" (
      "project_id" uuid NOT NULL, "cluster_group" character varying(63) NOT NULL, "phase" character varying(32) NOT NULL,
      "stalled" boolean NOT NULL, "stale" boolean NOT NULL, "n" integer NOT NULL DEFAULT 0,
      CONSTRAINT "pk_target_counts" PRIMARY KEY ("project_id", "cluster_group", "phase", "stalled", "stale"),
      CONSTRAINT "fk_target_counts_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE)`);
    await q.query(`CREATE TABLE "target_count_deltas" (
      "id" BIGSERIAL NOT NULL, "txid" bigint NOT NULL, "project_id" uuid NOT NULL, "cluster_group" character varying(63) NOT NULL,
      "phase" character varying(32) NOT NULL, "stalled" boolean NOT NULL, "stale" boolean NOT NULL, "n" integer NOT NULL,
      CONSTRAINT "pk_target_count_deltas" PRIMARY KEY ("id"))`);
    await q.query(`CREATE INDEX "idx_target_count_deltas_txid" ON "target_count_deltas" ("txid")`);
    await q.query(`CREATE TABLE "cluster_group_counts" (
      "group_name" character varying(63) NOT NULL, "clusters" integer NOT NULL DEFAULT 0, "unreachable" integer NOT NULL DEFAULT 0,
      CONSTRAINT "pk_cluster_group_counts" PRIMARY KEY ("group_name"))`);
    await q.query(`CREATE TABLE "cluster_count_deltas" (
      "id" BIGSERIAL NOT NULL, "txid" bigint NOT NULL, "group_name" character varying(63) NOT NULL, "clusters" integer NOT NULL, "unreachable" integer NOT NULL,
      CONSTRAINT "pk_cluster_count_deltas" PRIMARY KEY ("id"))`);
    await q.query(`CREATE INDEX "idx_cluster_count_deltas_txid" ON "cluster_count_deltas" ("txid")`);
    await q.query(`CREATE TABLE "cluster_rekeys" ("id" BIGSERIAL NOT NULL, "txid" bigint NOT NULL, "cluster_id" uuid NOT NULL, CONSTRAINT "pk_cluster_rekeys" PRIMARY KEY ("id"))`);
    await q.query(`CREATE INDEX "idx_cluster_rekeys_txid" ON "cluster_rekeys" ("txid")`);
    // the fleet matrix pages clusters by group, then name
    await q.query(`DROP INDEX "idx_clusters_group_name"`);
    await q.query(`CREATE INDEX "idx_clusters_group_name_name" ON "clusters" ("group_name", "name")`);
    // a Project view reads only the Targets a rollout wave holds back
    await q.query(`CREATE INDEX "idx_targets_rollout_waiting" ON "targets" ("project_id")
      WHERE "removal_requested_at" IS NULL AND "conditions" @> '[{"reason": "RolloutWaiting"}]'`);

    // What a Target is counted under, from its cluster and agent link. The cluster row is share-locked on
    // insert: a concurrent change of its group or connection (which re-derives its Targets) cannot miss this row.
    await q.query(`CREATE FUNCTION "target_count_key"() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE c record;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          SELECT group_name, mode INTO c FROM clusters WHERE id = NEW.cluster_id FOR SHARE;
        ELSE
          SELECT group_name, mode INTO c FROM clusters WHERE id = NEW.cluster_id;
        END IF;
        IF NOT FOUND THEN RETURN NEW; END IF; -- the foreign key refuses the row
        NEW.count_group := c.group_name;
        NEW.count_stale := c.mode = 'agent' AND NOT EXISTS (SELECT 1 FROM agent_links al WHERE al.cluster_id = NEW.cluster_id AND al.connected);
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER "trg_targets_count_key" BEFORE INSERT OR UPDATE OF "count_group", "count_stale", "cluster_id" ON "targets"
      FOR EACH ROW EXECUTE FUNCTION "target_count_key"()`);

    // Deltas of one statement, the rows it removed subtracted and the rows it added added, zero sums dropped.
    const delta = (rows: string, sign: number) =>
      `SELECT project_id, count_group, phase, (phase = 'Failed' AND conditions @> '[{"type": "Stalled", "status": "True"}]') AS stalled, count_stale, ${sign} AS n FROM ${rows}`;
    const targetDeltas = (parts: string[]) => `BEGIN
        INSERT INTO target_count_deltas (txid, project_id, cluster_group, phase, stalled, stale, n)
        SELECT txid_current(), project_id, count_group, phase, stalled, count_stale, sum(n) FROM (${parts.join(' UNION ALL ')}) d
        GROUP BY project_id, count_group, phase, stalled, count_stale HAVING sum(n) <> 0;
        RETURN NULL;
      END`;
    await q.query(`CREATE FUNCTION "target_counts_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$ ${targetDeltas([delta('new_rows', 1)])} $$`);
    await q.query(`CREATE FUNCTION "target_counts_updated"() RETURNS trigger LANGUAGE plpgsql AS $$ ${targetDeltas([delta('old_rows', -1), delta('new_rows', 1)])} $$`);
    await q.query(`CREATE FUNCTION "target_counts_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$ ${targetDeltas([delta('old_rows', -1)])} $$`);
    await q.query(`CREATE TRIGGER "trg_targets_counts_insert" AFTER INSERT ON "targets" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "target_counts_inserted"()`);
    await q.query(`CREATE TRIGGER "trg_targets_counts_update" AFTER UPDATE ON "targets" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "target_counts_updated"()`);
    await q.query(`CREATE TRIGGER "trg_targets_counts_delete" AFTER DELETE ON "targets" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "target_counts_deleted"()`);

    const clusterDelta = (rows: string, sign: number) => `SELECT group_name, ${sign} AS clusters, CASE WHEN reachable IS false THEN ${sign} ELSE 0 END AS unreachable FROM ${rows}`;
    const clusterDeltas = (parts: string[]) => `BEGIN
        INSERT INTO cluster_count_deltas (txid, group_name, clusters, unreachable)
        SELECT txid_current(), group_name, sum(clusters), sum(unreachable) FROM (${parts.join(' UNION ALL ')}) d
        GROUP BY group_name HAVING sum(clusters) <> 0 OR sum(unreachable) <> 0;
        RETURN NULL;
      END`;
    await q.query(`CREATE FUNCTION "cluster_counts_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$ ${clusterDeltas([clusterDelta('new_rows', 1)])} $$`);
    await q.query(`CREATE FUNCTION "cluster_counts_updated"() RETURNS trigger LANGUAGE plpgsql AS $$ ${clusterDeltas([clusterDelta('old_rows', -1), clusterDelta('new_rows', 1)])} $$`);
    await q.query(`CREATE FUNCTION "cluster_counts_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$ ${clusterDeltas([clusterDelta('old_rows', -1)])} $$`);
    await q.query(`CREATE TRIGGER "trg_clusters_counts_insert" AFTER INSERT ON "clusters" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "cluster_counts_inserted"()`);
    await q.query(`CREATE TRIGGER "trg_clusters_counts_update" AFTER UPDATE ON "clusters" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "cluster_counts_updated"()`);
    await q.query(`CREATE TRIGGER "trg_clusters_counts_delete" AFTER DELETE ON "clusters" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "cluster_counts_deleted"()`);

    // A cluster's group or mode changed, or its agent (dis)connected: its Targets re-derive their key.
    // (the hub changes a group under the membership lock, which Target inserts also hold: the two never interleave)
    await q.query(`CREATE FUNCTION "cluster_targets_rekey"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- in id order, as every batched Target write locks
        UPDATE targets t SET count_group = t.count_group FROM (SELECT id FROM targets WHERE cluster_id = NEW.id ORDER BY id FOR UPDATE) l WHERE t.id = l.id;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER "trg_clusters_rekey_targets" AFTER UPDATE OF "group_name", "mode" ON "clusters"
      FOR EACH ROW WHEN (OLD."group_name" IS DISTINCT FROM NEW."group_name" OR OLD."mode" IS DISTINCT FROM NEW."mode") EXECUTE FUNCTION "cluster_targets_rekey"()`);
    // An agent (dis)connecting re-keys its cluster's Targets at commit (see fold_fleet_counts).
    await q.query(`CREATE FUNCTION "agent_link_counted_change"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO cluster_rekeys (txid, cluster_id) VALUES (txid_current(), CASE WHEN TG_OP = 'DELETE' THEN OLD.cluster_id ELSE NEW.cluster_id END);
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER "trg_agent_links_rekey_insert" AFTER INSERT ON "agent_links"
      FOR EACH ROW WHEN (NEW."connected") EXECUTE FUNCTION "agent_link_counted_change"()`);
    await q.query(`CREATE TRIGGER "trg_agent_links_rekey_update" AFTER UPDATE OF "connected" ON "agent_links"
      FOR EACH ROW WHEN (OLD."connected" IS DISTINCT FROM NEW."connected") EXECUTE FUNCTION "agent_link_counted_change"()`);
    await q.query(`CREATE TRIGGER "trg_agent_links_rekey_delete" AFTER DELETE ON "agent_links"
      FOR EACH ROW WHEN (OLD."connected") EXECUTE FUNCTION "agent_link_counted_change"()`);

    // At commit: this transaction's deltas into the counters, in key order.
    // At commit, clusters whose agent (dis)connected first, in cluster order: each one's Targets locked,
    // then its row (Target inserts share-lock it, in cluster order too), then its Targets re-keyed as they
    // are now (a Target inserted meanwhile has committed). Then the counters, then (bump_membership_version) the version.
    await q.query(`CREATE FUNCTION "fold_fleet_counts"() RETURNS void LANGUAGE plpgsql AS $$
      DECLARE cid uuid;
      BEGIN
        FOR cid IN SELECT DISTINCT cluster_id FROM cluster_rekeys WHERE txid = txid_current() ORDER BY cluster_id LOOP
          PERFORM 1 FROM targets WHERE cluster_id = cid ORDER BY id FOR UPDATE;
          PERFORM 1 FROM clusters WHERE id = cid FOR NO KEY UPDATE;
          UPDATE targets t SET count_group = t.count_group FROM (SELECT id FROM targets WHERE cluster_id = cid ORDER BY id FOR UPDATE) l WHERE t.id = l.id;
        END LOOP;
        DELETE FROM cluster_rekeys WHERE txid = txid_current();
        WITH d AS (DELETE FROM target_count_deltas WHERE txid = txid_current() RETURNING project_id, cluster_group, phase, stalled, stale, n)
        INSERT INTO target_counts AS tc (project_id, cluster_group, phase, stalled, stale, n)
        SELECT d.project_id, d.cluster_group, d.phase, d.stalled, d.stale, sum(d.n) FROM d
        WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = d.project_id) -- a deleted Project's counts went with it
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(d.n) <> 0 ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT ON CONSTRAINT "pk_target_counts" DO UPDATE SET n = tc.n + EXCLUDED.n;
        WITH d AS (DELETE FROM cluster_count_deltas WHERE txid = txid_current() RETURNING group_name, clusters, unreachable)
        INSERT INTO cluster_group_counts AS cc (group_name, clusters, unreachable)
        SELECT group_name, sum(clusters), sum(unreachable) FROM d GROUP BY 1 HAVING sum(clusters) <> 0 OR sum(unreachable) <> 0 ORDER BY 1
        ON CONFLICT ON CONSTRAINT "pk_cluster_group_counts" DO UPDATE SET clusters = cc.clusters + EXCLUDED.clusters, unreachable = cc.unreachable + EXCLUDED.unreachable;
      END $$`);
    await q.query(`CREATE FUNCTION "fold_fleet_counts_at_commit"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM fold_fleet_counts(); RETURN NULL; END $$`);
    await q.query(`CREATE CONSTRAINT TRIGGER "trg_target_count_deltas_fold" AFTER INSERT ON "target_count_deltas"
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "fold_fleet_counts_at_commit"()`);
    await q.query(`CREATE CONSTRAINT TRIGGER "trg_cluster_rekeys_fold" AFTER INSERT ON "cluster_rekeys"
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "fold_fleet_counts_at_commit"()`);
    await q.query(`CREATE CONSTRAINT TRIGGER "trg_cluster_count_deltas_fold" AFTER INSERT ON "cluster_count_deltas"
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "fold_fleet_counts_at_commit"()`);
    // the counters before the membership version, whichever trigger fires first at commit
    await q.query(`CREATE OR REPLACE FUNCTION "bump_membership_version"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF current_setting('flotilla.membership_bumped', true) = 'on' THEN RETURN NULL; END IF;
        PERFORM fold_fleet_counts();
        PERFORM set_config('flotilla.membership_bumped', 'on', true);
        UPDATE "list_versions" SET "version" = "version" + 1 WHERE "name" = 'membership';
        RETURN NULL;
      END $$`);

    // what is there now (recounted after the keys are derived, however the migration's statements commit)
    await q.query(`UPDATE "targets" t SET "count_group" = t."count_group"`);
    await q.query(`DELETE FROM "target_count_deltas"`);
    await q.query(`DELETE FROM "target_counts"`);
    await q.query(`INSERT INTO "target_counts" ("project_id", "cluster_group", "phase", "stalled", "stale", "n")
      SELECT "project_id", "count_group", "phase", ("phase" = 'Failed' AND "conditions" @> '[{"type": "Stalled", "status": "True"}]'), "count_stale", count(*)
      FROM "targets" GROUP BY 1, 2, 3, 4, 5`);
    await q.query(`INSERT INTO "cluster_group_counts" ("group_name", "clusters", "unreachable")
      SELECT "group_name", count(*), count(*) FILTER (WHERE "reachable" IS false) FROM "clusters" GROUP BY 1`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE OR REPLACE FUNCTION "bump_membership_version"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF current_setting('flotilla.membership_bumped', true) = 'on' THEN RETURN NULL; END IF;
        PERFORM set_config('flotilla.membership_bumped', 'on', true);
        UPDATE "list_versions" SET "version" = "version" + 1 WHERE "name" = 'membership';
        RETURN NULL;
      END $$`);
    for (const [trigger, table] of [
      ['trg_agent_links_rekey_delete', 'agent_links'], ['trg_agent_links_rekey_update', 'agent_links'], ['trg_agent_links_rekey_insert', 'agent_links'],
      ['trg_clusters_rekey_targets', 'clusters'], ['trg_clusters_counts_delete', 'clusters'], ['trg_clusters_counts_update', 'clusters'], ['trg_clusters_counts_insert', 'clusters'],
      ['trg_targets_counts_delete', 'targets'], ['trg_targets_counts_update', 'targets'], ['trg_targets_counts_insert', 'targets'], ['trg_targets_count_key', 'targets'],
    ]) {
      await q.query(`DROP TRIGGER "${trigger}" ON "${table}"`);
    }
    await q.query(`DROP TABLE "cluster_rekeys"`);
    await q.query(`DROP TABLE "cluster_count_deltas"`);
    await q.query(`DROP TABLE "cluster_group_counts"`);
    await q.query(`DROP TABLE "target_count_deltas"`);
    await q.query(`DROP TABLE "target_counts"`);
    for (const fn of ['fold_fleet_counts_at_commit', 'fold_fleet_counts', 'agent_link_counted_change', 'cluster_targets_rekey', 'cluster_counts_deleted', 'cluster_counts_updated',
      'cluster_counts_inserted', 'target_counts_deleted', 'target_counts_updated', 'target_counts_inserted', 'target_count_key']) {
      await q.query(`DROP FUNCTION "${fn}"()`);
    }
    await q.query(`DROP INDEX "idx_targets_rollout_waiting"`);
    await q.query(`DROP INDEX "idx_clusters_group_name_name"`);
    await q.query(`CREATE INDEX "idx_clusters_group_name" ON "clusters" ("group_name")`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "count_stale"`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "count_group"`);
  }
}
