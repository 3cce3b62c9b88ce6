import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tokens that end: an optional expiry, and where each token came from, so the
 * one FLOTILLA_ADMIN_TOKEN registered can be revoked when the variable
 * changes. Rows from before keep no expiry and count as made through the API;
 * the next start marks the row matching FLOTILLA_ADMIN_TOKEN as 'env'.
 */
export class TokenLifetime1764700400000 implements MigrationInterface {
  name = 'TokenLifetime1764700400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "api_tokens" ADD "expires_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "api_tokens" ADD "source" character varying(16) NOT NULL DEFAULT 'api'`);
    await q.query(`ALTER TABLE "api_tokens" ADD CONSTRAINT "ck_api_tokens_source" CHECK ("source" IN ('api', 'env', 'generated'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "api_tokens" DROP CONSTRAINT "ck_api_tokens_source"`);
    await q.query(`ALTER TABLE "api_tokens" DROP COLUMN "source"`);
    await q.query(`ALTER TABLE "api_tokens" DROP COLUMN "expires_at"`);
  }
}
