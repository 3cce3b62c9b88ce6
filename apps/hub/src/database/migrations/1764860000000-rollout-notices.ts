import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rollout notices: per Project, the wave states the hub last announced for
 * its revision (so each transition is told once, whichever replica sees it),
 * and a chat webhook, sealed, that hears of them. Outbox rows say which body
 * they carry (a CDEvent, or a Slack-compatible message) and, for a webhook,
 * its sealed URL: the secret never lies in the clear beside the row.
 * Each destination keeps its own order: the pending index leads with the
 * Project and the format, so a failing webhook never holds the Project's
 * CDEvents back (nor the reverse).
 * Projects already there start with no announced states (null): the hub takes
 * what it sees first as announced, rather than telling every finished rollout
 * again; new ones start from an empty announcement and hear everything.
 */
export class RolloutNotices1764860000000 implements MigrationInterface {
  name = 'RolloutNotices1764860000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "projects" ADD "rollout_wave_states" jsonb`);
    // new Projects start with nothing announced: their first wave is told when it opens
    await q.query(`ALTER TABLE "projects" ALTER COLUMN "rollout_wave_states" SET DEFAULT '{"states": [], "revision": ""}'`);
    await q.query(`ALTER TABLE "projects" ADD "notification_webhook" jsonb`);
    await q.query(`ALTER TABLE "cdevent_outbox" ADD "format" character varying(16) NOT NULL DEFAULT 'cdevent'`);
    await q.query(`ALTER TABLE "cdevent_outbox" ADD "webhook" jsonb`);
    await q.query(`DROP INDEX "idx_cdevent_outbox_pending"`);
    await q.query(`CREATE INDEX "idx_cdevent_outbox_pending" ON "cdevent_outbox" ("project_id", "format", "id") WHERE "state" = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "idx_cdevent_outbox_pending"`);
    await q.query(`CREATE INDEX "idx_cdevent_outbox_pending" ON "cdevent_outbox" ("project_id", "id") WHERE "state" = 'pending'`);
    await q.query(`ALTER TABLE "cdevent_outbox" DROP COLUMN "webhook"`);
    await q.query(`ALTER TABLE "cdevent_outbox" DROP COLUMN "format"`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "notification_webhook"`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "rollout_wave_states"`);
  }
}
