import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every stored credential names the endpoint it was given for (a cluster's
 * server URL, a registry host); the binding is sealed into the value's
 * associated data. Rows written before stay null here: the hub re-seals them
 * under their owner's endpoint at start (it holds the keys, SQL does not).
 */
export class CredentialBindings1764700200000 implements MigrationInterface {
  name = 'CredentialBindings1764700200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "credentials" ADD "bound_to" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "credentials" DROP COLUMN "bound_to"`);
  }
}
