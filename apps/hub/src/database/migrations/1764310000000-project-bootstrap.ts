import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A Project may ask the hub to bootstrap it on push clusters: the role its service account gets, or null for no bootstrap. */
export class ProjectBootstrap1764310000000 implements MigrationInterface {
  name = 'ProjectBootstrap1764310000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "projects" ADD "bootstrap_role" character varying(16)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "projects" DROP COLUMN "bootstrap_role"`);
  }
}
