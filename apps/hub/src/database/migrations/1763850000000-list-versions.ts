import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The version of list membership (see ListVersionEntity), bumped once per
 * transaction that adds, removes or relabels a cluster or adds or removes a
 * Target. The triggers are deferred to commit: the version row is then the
 * last lock a writer takes, so waiting for it can never close a cycle with
 * the locks it already holds. Target updates (phases, every run) do not bump
 * it: lists filtered by phase are counted each time.
 */
export class ListVersions1763850000000 implements MigrationInterface {
  name = 'ListVersions1763850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "list_versions" ("name" varchar(63) NOT NULL, "version" bigint NOT NULL DEFAULT 0, CONSTRAINT "pk_list_versions" PRIMARY KEY ("name"))`);
    await q.query(`INSERT INTO "list_versions" ("name") VALUES ('membership')`);
    await q.query(`CREATE FUNCTION "bump_membership_version"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- once per transaction, however many rows it changed
        IF current_setting('flotilla.membership_bumped', true) = 'on' THEN RETURN NULL; END IF;
        PERFORM set_config('flotilla.membership_bumped', 'on', true);
        UPDATE "list_versions" SET "version" = "version" + 1 WHERE "name" = 'membership';
        RETURN NULL;
      END $$`);
    await q.query(`CREATE CONSTRAINT TRIGGER "trg_clusters_membership" AFTER INSERT OR DELETE OR UPDATE OF "group_name", "labels", "mode" ON "clusters"
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_membership_version"()`);
    await q.query(`CREATE CONSTRAINT TRIGGER "trg_targets_membership" AFTER INSERT OR DELETE ON "targets"
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_membership_version"()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "trg_targets_membership" ON "targets"`);
    await q.query(`DROP TRIGGER "trg_clusters_membership" ON "clusters"`);
    await q.query(`DROP FUNCTION "bump_membership_version"()`);
    await q.query(`DROP TABLE "list_versions"`);
  }
}
