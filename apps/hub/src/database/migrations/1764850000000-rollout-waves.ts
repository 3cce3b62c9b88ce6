import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rollout waves gated on health: a Project's `rollout.waves`, what it does
 * past a failure budget, its allow and deny windows and what operators did to
 * its rollout (approvals, holds, rollbacks); per Target, since when its applied revision is what
 * it is, since when it is Ready and Healthy on it, and the last revision it
 * was Ready and Healthy on (where an automatic rollback takes it back to). A trigger keeps the two
 * times on every write of phase, conditions or revision, so the push runs,
 * the agent reports and anything later agree on them without each writing
 * them. While a run is in progress (phase Reconciling, no Healthy condition)
 * the time it became healthy stands: a drift-correcting run does not restart
 * a soak.
 */
export class RolloutWaves1764850000000 implements MigrationInterface {
  name = 'RolloutWaves1764850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "projects" ADD "rollout_waves" jsonb NOT NULL DEFAULT '[]'`);
    await q.query(`ALTER TABLE "projects" ADD "rollout_on_failure" character varying(16) NOT NULL DEFAULT 'halt'`);
    await q.query(`ALTER TABLE "projects" ADD "rollout_actions" jsonb NOT NULL DEFAULT '[]'`);
    await q.query(`ALTER TABLE "projects" ADD "rollout_windows" jsonb NOT NULL DEFAULT '[]'`);
    await q.query(`ALTER TABLE "targets" ADD "revision_since" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "targets" ADD "healthy_since" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "targets" ADD "last_healthy_revision" text`);
    await q.query(`CREATE FUNCTION "targets_rollout_times"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' OR NEW."last_applied_revision" IS DISTINCT FROM OLD."last_applied_revision" THEN
          NEW."revision_since" := CASE WHEN NEW."last_applied_revision" IS NULL THEN NULL ELSE now() END;
          NEW."healthy_since" := NULL;
        END IF;
        IF NEW."phase" = 'Reconciling' THEN
          RETURN NEW;
        END IF;
        IF NEW."phase" = 'Ready' AND NEW."last_applied_revision" IS NOT NULL
           AND NEW."conditions" @> '[{"type": "Ready", "status": "True"}, {"type": "Healthy", "status": "True"}]'::jsonb THEN
          NEW."healthy_since" := COALESCE(NEW."healthy_since", now());
          NEW."last_healthy_revision" := NEW."last_applied_revision";
        ELSE
          NEW."healthy_since" := NULL;
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER "trg_targets_rollout_times" BEFORE INSERT OR UPDATE OF "phase", "conditions", "last_applied_revision" ON "targets"
      FOR EACH ROW EXECUTE FUNCTION "targets_rollout_times"()`);
    // Targets already there: their revision counts from now, and so does their health
    await q.query(`UPDATE "targets" SET "revision_since" = now() WHERE "last_applied_revision" IS NOT NULL`);
    await q.query(`UPDATE "targets" SET "healthy_since" = now(), "last_healthy_revision" = "last_applied_revision" WHERE "phase" = 'Ready' AND "last_applied_revision" IS NOT NULL
      AND "conditions" @> '[{"type": "Ready", "status": "True"}, {"type": "Healthy", "status": "True"}]'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "trg_targets_rollout_times" ON "targets"`);
    await q.query(`DROP FUNCTION "targets_rollout_times"()`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "last_healthy_revision"`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "healthy_since"`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "revision_since"`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "rollout_windows"`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "rollout_actions"`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "rollout_on_failure"`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "rollout_waves"`);
  }
}
