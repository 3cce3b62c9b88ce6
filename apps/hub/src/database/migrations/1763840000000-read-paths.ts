import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the read routes at fleet scale: phase counts per Project,
 * events of one Project on one cluster newest first, and label selectors
 * (equality as jsonb containment, which a GIN index answers).
 */
export class ReadPaths1763840000000 implements MigrationInterface {
  name = 'ReadPaths1763840000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "idx_targets_project_phase" ON "targets" ("project_id", "phase")`);
    await q.query(`CREATE INDEX "idx_events_project_cluster_created" ON "events" ("project_id", "cluster_name", "created_at")`);
    await q.query(`CREATE INDEX "idx_clusters_labels" ON "clusters" USING gin ("labels" jsonb_path_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "public"."idx_clusters_labels"`);
    await q.query(`DROP INDEX "public"."idx_events_project_cluster_created"`);
    await q.query(`DROP INDEX "public"."idx_targets_project_phase"`);
  }
}
