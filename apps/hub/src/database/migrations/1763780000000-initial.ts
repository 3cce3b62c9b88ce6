import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The hub's first schema: inventory (clusters, credentials), Projects, their
 * Targets with run history and events, and API tokens. Generated from the
 * entities, then reviewed: every constraint and index carries an explicit name.
 */
export class Initial1763780000000 implements MigrationInterface {
  name = 'Initial1763780000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "api_tokens" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(63) NOT NULL, "role" character varying(16) NOT NULL, "token_hash" character varying(64) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "revoked_at" TIMESTAMP WITH TIME ZONE, "last_used_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "uq_api_tokens_token_hash" UNIQUE ("token_hash"), CONSTRAINT "ck_api_tokens_role" CHECK ("role" IN ('admin', 'operator', 'viewer')), CONSTRAINT "pk_api_tokens" PRIMARY KEY ("id"))`);
    await q.query(`CREATE TABLE "credentials" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "kind" character varying(32) NOT NULL, "key_id" character varying(64) NOT NULL, "envelope" text NOT NULL, "fingerprint" character varying(64) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_credentials" PRIMARY KEY ("id"))`);
    await q.query(`CREATE INDEX "idx_credentials_key_id" ON "credentials" ("key_id")`);
    await q.query(`CREATE TABLE "clusters" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(63) NOT NULL, "group_name" character varying(63) NOT NULL DEFAULT 'default', "labels" jsonb NOT NULL DEFAULT '{}', "mode" character varying(16) NOT NULL, "server" text, "ca_data" text, "insecure_skip_tls_verify" boolean NOT NULL DEFAULT false, "credential_id" uuid, "reachable" boolean, "server_version" character varying(64), "last_checked_at" TIMESTAMP WITH TIME ZONE, "status_message" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "uq_clusters_name" UNIQUE ("name"), CONSTRAINT "ck_clusters_mode" CHECK ("mode" IN ('push', 'agent')), CONSTRAINT "pk_clusters" PRIMARY KEY ("id"))`);
    await q.query(`CREATE INDEX "idx_clusters_group_name" ON "clusters" ("group_name")`);
    await q.query(`CREATE TABLE "projects" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(63) NOT NULL, "namespace" character varying(63) NOT NULL, "source_repository" text NOT NULL, "source_tag" character varying(128) NOT NULL DEFAULT 'latest', "source_path" text NOT NULL DEFAULT 'project.cue', "service_account_name" character varying(253) NOT NULL, "target_selector" jsonb NOT NULL DEFAULT '{}', "rollout_groups" jsonb NOT NULL DEFAULT '[]', "interval_seconds" integer NOT NULL DEFAULT '600', "suspend" boolean NOT NULL DEFAULT false, "annotations" jsonb NOT NULL DEFAULT '{}', "registry_credential_id" uuid, "cdevents_sink" text, "generation" integer NOT NULL DEFAULT '1', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "uq_projects_name" UNIQUE ("name"), CONSTRAINT "pk_projects" PRIMARY KEY ("id"))`);
    await q.query(`CREATE TABLE "events" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "project_id" uuid NOT NULL, "cluster_name" character varying(63), "type" character varying(16) NOT NULL, "reason" character varying(64) NOT NULL, "message" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_events" PRIMARY KEY ("id"))`);
    await q.query(`CREATE INDEX "idx_events_project_created" ON "events" ("project_id", "created_at")`);
    await q.query(`CREATE TABLE "targets" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "project_id" uuid NOT NULL, "cluster_id" uuid NOT NULL, "generation" integer NOT NULL DEFAULT '1', "observed_generation" integer, "phase" character varying(32) NOT NULL DEFAULT 'Pending', "last_applied_revision" text, "conditions" jsonb NOT NULL DEFAULT '[]', "components" jsonb NOT NULL DEFAULT '[]', "next_run_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "attempt" integer NOT NULL DEFAULT '0', "lease_owner" character varying(128), "lease_expires_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "uq_targets_project_cluster" UNIQUE ("project_id", "cluster_id"), CONSTRAINT "pk_targets" PRIMARY KEY ("id"))`);
    await q.query(`CREATE INDEX "idx_targets_next_run_at" ON "targets" ("next_run_at")`);
    await q.query(`CREATE INDEX "idx_targets_cluster" ON "targets" ("cluster_id")`);
    await q.query(`CREATE TABLE "runs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "target_id" uuid NOT NULL, "generation" integer NOT NULL, "revision" text, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "finished_at" TIMESTAMP WITH TIME ZONE, "result" character varying(16) NOT NULL, "instances" jsonb NOT NULL DEFAULT '[]', "error" text, CONSTRAINT "pk_runs" PRIMARY KEY ("id"))`);
    await q.query(`CREATE INDEX "idx_runs_target_started" ON "runs" ("target_id", "started_at")`);
    await q.query(`ALTER TABLE "clusters" ADD CONSTRAINT "fk_clusters_credential" FOREIGN KEY ("credential_id") REFERENCES "credentials"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
    await q.query(`ALTER TABLE "projects" ADD CONSTRAINT "fk_projects_registry_credential" FOREIGN KEY ("registry_credential_id") REFERENCES "credentials"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
    await q.query(`ALTER TABLE "events" ADD CONSTRAINT "fk_events_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await q.query(`ALTER TABLE "targets" ADD CONSTRAINT "fk_targets_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await q.query(`ALTER TABLE "targets" ADD CONSTRAINT "fk_targets_cluster" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await q.query(`ALTER TABLE "runs" ADD CONSTRAINT "fk_runs_target" FOREIGN KEY ("target_id") REFERENCES "targets"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "runs" DROP CONSTRAINT "fk_runs_target"`);
    await q.query(`ALTER TABLE "targets" DROP CONSTRAINT "fk_targets_cluster"`);
    await q.query(`ALTER TABLE "targets" DROP CONSTRAINT "fk_targets_project"`);
    await q.query(`ALTER TABLE "events" DROP CONSTRAINT "fk_events_project"`);
    await q.query(`ALTER TABLE "projects" DROP CONSTRAINT "fk_projects_registry_credential"`);
    await q.query(`ALTER TABLE "clusters" DROP CONSTRAINT "fk_clusters_credential"`);
    await q.query(`DROP INDEX "public"."idx_runs_target_started"`);
    await q.query(`DROP TABLE "runs"`);
    await q.query(`DROP INDEX "public"."idx_targets_cluster"`);
    await q.query(`DROP INDEX "public"."idx_targets_next_run_at"`);
    await q.query(`DROP TABLE "targets"`);
    await q.query(`DROP INDEX "public"."idx_events_project_created"`);
    await q.query(`DROP TABLE "events"`);
    await q.query(`DROP TABLE "projects"`);
    await q.query(`DROP INDEX "public"."idx_clusters_group_name"`);
    await q.query(`DROP TABLE "clusters"`);
    await q.query(`DROP INDEX "public"."idx_credentials_key_id"`);
    await q.query(`DROP TABLE "credentials"`);
    await q.query(`DROP TABLE "api_tokens"`);
  }
}
