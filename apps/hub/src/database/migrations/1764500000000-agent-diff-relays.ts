import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Fleet diffs relayed between replicas: asked on one, answered by an agent connected to another. */
export class AgentDiffRelays1764500000000 implements MigrationInterface {
  name = 'AgentDiffRelays1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "agent_diff_relays" ("id" uuid NOT NULL, "cluster_id" uuid NOT NULL, "target_id" uuid NOT NULL, "source" jsonb NOT NULL, "artifact" bytea, "answer" jsonb,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_agent_diff_relays" PRIMARY KEY ("id"))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "agent_diff_relays"`);
  }
}
