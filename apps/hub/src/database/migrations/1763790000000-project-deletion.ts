import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A Project being deleted together with its applied instances stays until its Targets have pruned them. */
export class ProjectDeletion1763790000000 implements MigrationInterface {
  name = 'ProjectDeletion1763790000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "projects" ADD "deletion_requested_at" TIMESTAMP WITH TIME ZONE`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "projects" DROP COLUMN "deletion_requested_at"`);
  }
}
