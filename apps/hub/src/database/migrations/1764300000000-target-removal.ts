import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A cluster leaving a Project's targets: the Project says whether its
 * instances there are deleted or orphaned, and a Target being removed keeps
 * its row (phase Deleting) until its instances are gone. Taking over an
 * instance another owner holds is an explicit Project field.
 */
export class TargetRemoval1764300000000 implements MigrationInterface {
  name = 'TargetRemoval1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "projects" ADD "target_removal" character varying(16) NOT NULL DEFAULT 'delete'`);
    await q.query(`ALTER TABLE "projects" ADD "overwrite_ownership" boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE "targets" ADD "removal_requested_at" TIMESTAMP WITH TIME ZONE`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "targets" DROP COLUMN "removal_requested_at"`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "overwrite_ownership"`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "target_removal"`);
  }
}
