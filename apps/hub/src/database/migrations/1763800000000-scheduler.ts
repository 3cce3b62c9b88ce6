import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the scheduler needs: a fencing epoch and manual-request marker on
 * Targets, the polled source digest on Projects, and why/where each Run ran.
 */
export class Scheduler1763800000000 implements MigrationInterface {
  name = 'Scheduler1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "projects" ADD "source_digest" character varying(71)`);
    await q.query(`ALTER TABLE "projects" ADD "source_checked_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "projects" ADD "source_error" text`);
    await q.query(`ALTER TABLE "targets" ADD "lease_epoch" integer NOT NULL DEFAULT '0'`);
    await q.query(`ALTER TABLE "targets" ADD "reconcile_requested_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "runs" ADD "trigger" character varying(32) NOT NULL DEFAULT 'Interval'`);
    await q.query(`ALTER TABLE "runs" ADD "lease_owner" character varying(128)`);
    await q.query(`ALTER TABLE "runs" ADD "duration_ms" integer`);
    await q.query(`CREATE INDEX "idx_projects_source_checked_at" ON "projects" ("source_checked_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "public"."idx_projects_source_checked_at"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "duration_ms"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "lease_owner"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "trigger"`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "reconcile_requested_at"`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "lease_epoch"`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "source_error"`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "source_checked_at"`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "source_digest"`);
  }
}
