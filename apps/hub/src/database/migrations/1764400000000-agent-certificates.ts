import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agents prove who they are with client certificates: the CA that signs them
 * (its key sealed in the credentials store, so key rotation re-seals it),
 * and per agent the fingerprint of its current certificate (and of the one
 * it replaces while it switches). The bearer credential hash goes: an agent
 * registered with one registers again with a new bootstrap token.
 */
export class AgentCertificates1764400000000 implements MigrationInterface {
  name = 'AgentCertificates1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "agent_ca" (
      "name" character varying(32) NOT NULL,
      "certificate" text NOT NULL,
      "key_credential_id" uuid NOT NULL,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "pk_agent_ca" PRIMARY KEY ("name"),
      CONSTRAINT "fk_agent_ca_key" FOREIGN KEY ("key_credential_id") REFERENCES "credentials"("id") ON DELETE NO ACTION ON UPDATE NO ACTION)`);
    await q.query(`ALTER TABLE "agent_links" DROP COLUMN "credential_hash"`);
    await q.query(`ALTER TABLE "agent_links" ADD "cert_fingerprint" character varying(64)`);
    await q.query(`ALTER TABLE "agent_links" ADD "cert_expires_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "agent_links" ADD "previous_cert_fingerprint" character varying(64)`);
    await q.query(`ALTER TABLE "agent_links" ADD "previous_cert_until" TIMESTAMP WITH TIME ZONE`);
    await q.query(`CREATE INDEX "idx_agent_links_cert_fingerprint" ON "agent_links" ("cert_fingerprint")`);
    await q.query(`CREATE INDEX "idx_agent_links_previous_cert_fingerprint" ON "agent_links" ("previous_cert_fingerprint")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "public"."idx_agent_links_previous_cert_fingerprint"`);
    await q.query(`DROP INDEX "public"."idx_agent_links_cert_fingerprint"`);
    await q.query(`ALTER TABLE "agent_links" DROP COLUMN "previous_cert_until"`);
    await q.query(`ALTER TABLE "agent_links" DROP COLUMN "previous_cert_fingerprint"`);
    await q.query(`ALTER TABLE "agent_links" DROP COLUMN "cert_expires_at"`);
    await q.query(`ALTER TABLE "agent_links" DROP COLUMN "cert_fingerprint"`);
    await q.query(`ALTER TABLE "agent_links" ADD "credential_hash" character varying(64)`);
    await q.query(`DROP TABLE "agent_ca"`);
  }
}
