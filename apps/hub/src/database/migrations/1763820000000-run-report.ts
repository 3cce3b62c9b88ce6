import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the engine's run report adds: the namespaces that still hold a
 * Target's instances (searched on every later run), the revision a rollout
 * wave opened for a Target while it may have been running, and each Run's
 * errors as data.
 */
export class RunReport1763820000000 implements MigrationInterface {
  name = 'RunReport1763820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "targets" ADD "namespaces" jsonb NOT NULL DEFAULT '[]'`);
    await q.query(`ALTER TABLE "targets" ADD "advance_to_revision" text`);
    await q.query(`ALTER TABLE "runs" ADD "errors" jsonb NOT NULL DEFAULT '[]'`);
    // Namespaces known so far are those of the instances recorded in each Target's components.
    await q.query(
      `UPDATE "targets" t SET "namespaces" = COALESCE((
         SELECT jsonb_agg(DISTINCT i->>'namespace') FROM jsonb_array_elements(t."components") c, jsonb_array_elements(COALESCE(c->'instances', '[]'::jsonb)) i
         WHERE i ? 'namespace'), '[]'::jsonb)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "runs" DROP COLUMN "errors"`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "advance_to_revision"`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "namespaces"`);
  }
}
