import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Connected agents: their identity and connection state, the assignment each Target last sent, and report ids for replay. */
export class AgentLinks1764000000000 implements MigrationInterface {
  name = 'AgentLinks1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "agent_links" (
      "cluster_id" uuid NOT NULL,
      "bootstrap_token_hash" character varying(64),
      "bootstrap_expires_at" TIMESTAMP WITH TIME ZONE,
      "credential_hash" character varying(64),
      "connected" boolean NOT NULL DEFAULT false,
      "status_since" TIMESTAMP WITH TIME ZONE,
      "replica" character varying(128),
      "agent_version" character varying(64),
      "last_heartbeat_at" TIMESTAMP WITH TIME ZONE,
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "pk_agent_links" PRIMARY KEY ("cluster_id"),
      CONSTRAINT "fk_agent_links_cluster" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`ALTER TABLE "targets" ADD "agent_generation" integer`);
    await q.query(`ALTER TABLE "targets" ADD "agent_digest" text`);
    await q.query(`ALTER TABLE "runs" ADD "agent_report_id" character varying(64)`);
    await q.query(`CREATE UNIQUE INDEX "uq_runs_agent_report_id" ON "runs" ("agent_report_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "public"."uq_runs_agent_report_id"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "agent_report_id"`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "agent_digest"`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "agent_generation"`);
    await q.query(`DROP TABLE "agent_links"`);
  }
}
