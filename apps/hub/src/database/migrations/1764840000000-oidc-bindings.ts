import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Claim bindings for single sign-on: a group or a subject of the OpenID
 * provider gets a role in one tenant, or globally (tenant null, the only
 * place `admin` may be given). A global binding is unique too: NULLS NOT
 * DISTINCT makes (claim, value, NULL) collide with itself. Deleting a
 * tenant deletes its bindings.
 */
export class OidcBindings1764840000000 implements MigrationInterface {
  name = 'OidcBindings1764840000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "oidc_bindings" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "claim" character varying(16) NOT NULL,
      "value" character varying(255) NOT NULL,
      "tenant" character varying(63),
      "role" character varying(16) NOT NULL,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "pk_oidc_bindings" PRIMARY KEY ("id"),
      CONSTRAINT "uq_oidc_bindings_claim_value_tenant" UNIQUE NULLS NOT DISTINCT ("claim", "value", "tenant"),
      CONSTRAINT "ck_oidc_bindings_claim" CHECK ("claim" IN ('group', 'subject')),
      CONSTRAINT "ck_oidc_bindings_role" CHECK ("role" IN ('viewer', 'operator', 'admin')),
      CONSTRAINT "ck_oidc_bindings_admin_global" CHECK ("role" <> 'admin' OR "tenant" IS NULL),
      CONSTRAINT "fk_oidc_bindings_tenant" FOREIGN KEY ("tenant") REFERENCES "tenants"("name") ON DELETE CASCADE ON UPDATE NO ACTION
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "oidc_bindings"`);
  }
}
