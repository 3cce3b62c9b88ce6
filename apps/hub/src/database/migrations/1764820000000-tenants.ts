import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenants: every Project belongs to one, and a token may be issued for one.
 * Existing Projects join the tenant `default`, which allows what the hub
 * allowed before tenants (every cluster, namespace, service account,
 * repository and bootstrap role), so an upgrade changes no behaviour until an
 * admin narrows it or moves teams to tenants of their own.
 */
export class Tenants1764820000000 implements MigrationInterface {
  name = 'Tenants1764820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "tenants" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "name" character varying(63) NOT NULL,
      "description" text NOT NULL DEFAULT '',
      "destinations" jsonb NOT NULL DEFAULT '{}',
      "namespaces" jsonb NOT NULL DEFAULT '[]',
      "service_accounts" jsonb NOT NULL DEFAULT '[]',
      "repositories" jsonb NOT NULL DEFAULT '[]',
      "bootstrap_roles" jsonb NOT NULL DEFAULT '[]',
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "uq_tenants_name" UNIQUE ("name"),
      CONSTRAINT "pk_tenants" PRIMARY KEY ("id"))`);
    await q.query(`INSERT INTO "tenants" ("name", "description", "destinations", "namespaces", "service_accounts", "repositories", "bootstrap_roles")
      VALUES ('default', 'Projects from before tenants; allows what the hub allowed then', '{"labelSelector": {}}', '["*"]', '["*"]', '["oci://"]', '["admin", "cluster-admin"]')`);
    await q.query(`ALTER TABLE "projects" ADD "tenant" character varying(63) NOT NULL DEFAULT 'default'`);
    await q.query(`ALTER TABLE "projects" ALTER COLUMN "tenant" DROP DEFAULT`);
    await q.query(`ALTER TABLE "projects" ADD CONSTRAINT "fk_projects_tenant" FOREIGN KEY ("tenant") REFERENCES "tenants"("name") ON DELETE RESTRICT ON UPDATE NO ACTION`);
    await q.query(`CREATE INDEX "idx_projects_tenant_name" ON "projects" ("tenant", "name")`);
    await q.query(`ALTER TABLE "projects" ADD "outside_destinations" jsonb`);
    await q.query(`ALTER TABLE "api_tokens" ADD "tenant" character varying(63)`);
    await q.query(`ALTER TABLE "api_tokens" ADD CONSTRAINT "fk_api_tokens_tenant" FOREIGN KEY ("tenant") REFERENCES "tenants"("name") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await q.query(`ALTER TABLE "api_tokens" ADD CONSTRAINT "ck_api_tokens_tenant_role" CHECK ("tenant" IS NULL OR "role" IN ('operator', 'viewer'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "api_tokens" DROP CONSTRAINT "ck_api_tokens_tenant_role"`);
    await q.query(`ALTER TABLE "api_tokens" DROP CONSTRAINT "fk_api_tokens_tenant"`);
    await q.query(`ALTER TABLE "api_tokens" DROP COLUMN "tenant"`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "outside_destinations"`);
    await q.query(`DROP INDEX "idx_projects_tenant_name"`);
    await q.query(`ALTER TABLE "projects" DROP CONSTRAINT "fk_projects_tenant"`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "tenant"`);
    await q.query(`DROP TABLE "tenants"`);
  }
}
