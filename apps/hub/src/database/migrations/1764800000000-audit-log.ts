import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log: one row per mutating or refused API request. Rows are
 * append-only in the database itself: a trigger refuses every UPDATE and
 * TRUNCATE, and every DELETE except the one audit_entries_purge() makes of
 * rows older than the cutoff it was given (the function sets a
 * transaction-local variable the trigger reads). The trigger keeps the hub's
 * own code and a stray statement from rewriting history; it does not stop the
 * table's owner, who can drop it, which docs/security.md says.
 */
export class AuditLog1764800000000 implements MigrationInterface {
  name = 'AuditLog1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "audit_entries" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "at" TIMESTAMP WITH TIME ZONE NOT NULL,
      "actor_kind" character varying(16) NOT NULL,
      "actor_id" character varying(255) NOT NULL,
      "actor_name" character varying(255) NOT NULL,
      "actor_email" character varying(320),
      "tenant" character varying(63),
      "action" character varying(300) NOT NULL,
      "object_kind" character varying(32),
      "object_name" character varying(253),
      "outcome" integer NOT NULL,
      "request_id" character varying(64) NOT NULL,
      "source_address" character varying(64),
      CONSTRAINT "pk_audit_entries" PRIMARY KEY ("id"),
      CONSTRAINT "ck_audit_entries_actor_kind" CHECK ("actor_kind" IN ('token', 'oidc', 'anonymous'))
    )`);
    // newest first on (at, id) for every page; the filters lead with their column
    await q.query(`CREATE INDEX "idx_audit_entries_at" ON "audit_entries" ("at", "id")`);
    await q.query(`CREATE INDEX "idx_audit_entries_actor_id_at" ON "audit_entries" ("actor_id", "at", "id")`);
    await q.query(`CREATE INDEX "idx_audit_entries_actor_name_at" ON "audit_entries" ("actor_name", "at", "id")`);
    await q.query(`CREATE INDEX "idx_audit_entries_object_at" ON "audit_entries" ("object_kind", "object_name", "at", "id")`);
    await q.query(`CREATE INDEX "idx_audit_entries_tenant_at" ON "audit_entries" ("tenant", "at", "id")`);
    await q.query(`CREATE FUNCTION "audit_entries_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        cutoff text := current_setting('flotilla.audit_purge_before', true);
      BEGIN
        IF TG_OP = 'DELETE' AND coalesce(cutoff, '') <> '' THEN
          IF OLD."at" < CAST(cutoff AS timestamptz) THEN
            RETURN OLD;
          END IF;
        END IF;
        RAISE EXCEPTION 'audit_entries is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await q.query(`CREATE TRIGGER "trg_audit_entries_append_only" BEFORE UPDATE OR DELETE ON "audit_entries" FOR EACH ROW EXECUTE FUNCTION "audit_entries_append_only"()`);
    await q.query(`CREATE TRIGGER "trg_audit_entries_no_truncate" BEFORE TRUNCATE ON "audit_entries" FOR EACH STATEMENT EXECUTE FUNCTION "audit_entries_append_only"()`);
    // the one way out: rows older than the cutoff, at most batch of them per call (callers loop)
    await q.query(`CREATE FUNCTION "audit_entries_purge"(cutoff timestamptz, batch integer) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        n integer;
      BEGIN
        PERFORM set_config('flotilla.audit_purge_before', CAST(cutoff AS text), true);
        DELETE FROM "audit_entries" WHERE "id" IN (SELECT "id" FROM "audit_entries" WHERE "at" < cutoff ORDER BY "at" LIMIT batch);
        GET DIAGNOSTICS n = ROW_COUNT;
        PERFORM set_config('flotilla.audit_purge_before', '', true);
        RETURN n;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION "audit_entries_purge"(timestamptz, integer)`);
    await q.query(`DROP TABLE "audit_entries"`);
    await q.query(`DROP FUNCTION "audit_entries_append_only"()`);
  }
}
