import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The identity of each push cluster's API server, so a second registration of the same server is noticed. */
export class ClusterIdentity1763830000000 implements MigrationInterface {
  name = 'ClusterIdentity1763830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "clusters" ADD "api_server_identity" character varying(64)`);
    await q.query(`CREATE INDEX "idx_clusters_api_server_identity" ON "clusters" ("api_server_identity")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "public"."idx_clusters_api_server_identity"`);
    await q.query(`ALTER TABLE "clusters" DROP COLUMN "api_server_identity"`);
  }
}
