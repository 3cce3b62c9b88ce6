import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An agent Target's assignment is desired state the hub writes, not a run it
 * leases: what the agent scheduled next, why the assignment was sent, the
 * Project generation it carried, the last generation the agent reported on,
 * and a fingerprint of what was sent (a change that changes nothing sends nothing).
 * Agent Targets no longer hold leases: any left by the old scheduler are dropped.
 */
export class AgentDesiredState1764810000000 implements MigrationInterface {
  name = 'AgentDesiredState1764810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "targets" ADD "agent_next_run_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "targets" ADD "agent_trigger" character varying(32)`);
    await q.query(`ALTER TABLE "targets" ADD "agent_project_generation" integer`);
    await q.query(`ALTER TABLE "targets" ADD "agent_reported_generation" integer`);
    await q.query(`ALTER TABLE "targets" ADD "agent_fingerprint" character varying(64)`);
    await q.query(
      `UPDATE "targets" t SET "lease_owner" = NULL, "lease_expires_at" = NULL, "next_run_at" = now()
       FROM "clusters" c WHERE c."id" = t."cluster_id" AND c."mode" = 'agent'`,
    );
    await q.query(`UPDATE "runs" r SET "result" = 'Abandoned', "finished_at" = now(), "error" = 'the hub no longer waits for agent runs: the agent reports them itself'
       FROM "targets" t JOIN "clusters" c ON c."id" = t."cluster_id" WHERE r."target_id" = t."id" AND c."mode" = 'agent' AND r."result" = 'Running'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "targets" DROP COLUMN "agent_fingerprint"`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "agent_reported_generation"`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "agent_project_generation"`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "agent_trigger"`);
    await q.query(`ALTER TABLE "targets" DROP COLUMN "agent_next_run_at"`);
  }
}
