import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A Target's list is ordered by its cluster's name. With the name only on
 * clusters, a Project on a few clusters of a large fleet walked the cluster
 * index until it had found a page of its own (a 500-cluster Project in a
 * 10,000-cluster fleet: some 1,000 probes per page). targets.cluster_name,
 * copied from the cluster by a trigger and indexed with the Project, gives
 * every Project's page in index order. Cluster names cannot change through
 * the API; a change made by hand is copied too.
 */
export class TargetClusterName1764880000000 implements MigrationInterface {
  name = 'TargetClusterName1764880000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "targets" ADD "cluster_name" character varying(63) NOT NULL DEFAULT ''`);
    await q.query(`CREATE FUNCTION "target_cluster_name"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.cluster_name := COALESCE((SELECT name FROM clusters WHERE id = NEW.cluster_id), '');
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER "trg_targets_cluster_name" BEFORE INSERT OR UPDATE OF "cluster_id", "cluster_name" ON "targets"
      FOR EACH ROW EXECUTE FUNCTION "target_cluster_name"()`);
    await q.query(`CREATE FUNCTION "cluster_renamed"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE targets SET cluster_name = NEW.name WHERE cluster_id = NEW.id;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER "trg_clusters_renamed" AFTER UPDATE OF "name" ON "clusters"
      FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION "cluster_renamed"()`);
    await q.query(`UPDATE "targets" t SET "cluster_name" = c."name" FROM "clusters" c WHERE c."id" = t."cluster_id"`);
    await q.query(`CREATE INDEX "idx_targets_project_cluster_name" ON "targets" ("project_id", "cluster_name")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "idx_targets_project_cluster_name"`);
    await q.query(`DROP TRIGGER "trg_clusters_renamed" ON "clusters"`);
    await q.query(`DROP FUNCTION "cluster_renamed"()`);
    await q.query(`DROP TRIGGER "trg_targets_cluster_name" ON "targets"`);
    await q.query(`DROP FUNCTION "target_cluster_name"()`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "cluster_name"`);
  }
}
