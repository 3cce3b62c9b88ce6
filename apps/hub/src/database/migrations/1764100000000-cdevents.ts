import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * CDEvents: the outbox of events to deliver to Project sinks (written with
 * the change they tell about, delivered in `id` order per Project), the
 * receipts of inbound events (a replay is taken once), and the sealed secret
 * header of a Project's sink.
 */
export class Cdevents1764100000000 implements MigrationInterface {
  name = 'Cdevents1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "cdevent_outbox" ("id" BIGSERIAL NOT NULL, "event_id" uuid NOT NULL, "project_id" uuid NOT NULL, "project_name" character varying(63) NOT NULL,
      "type" character varying(128) NOT NULL, "payload" jsonb NOT NULL, "sink_url" text NOT NULL, "sink_header" jsonb, "state" character varying(16) NOT NULL DEFAULT 'pending',
      "attempts" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_error" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "delivered_at" TIMESTAMP WITH TIME ZONE, "lease_owner" character varying(128), "lease_expires_at" TIMESTAMP WITH TIME ZONE,
      CONSTRAINT "UQ_cdevent_outbox_event_id" UNIQUE ("event_id"), CONSTRAINT "pk_cdevent_outbox" PRIMARY KEY ("id"))`);
    await q.query(`CREATE INDEX "idx_cdevent_outbox_pending" ON "cdevent_outbox" ("project_id", "id") WHERE "state" = 'pending'`);
    await q.query(`CREATE INDEX "idx_cdevent_outbox_project_name" ON "cdevent_outbox" ("project_name", "id")`);
    await q.query(`CREATE TABLE "cdevent_receipts" ("source" text NOT NULL, "event_id" text NOT NULL, "received_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_cdevent_receipts" PRIMARY KEY ("source", "event_id"))`);
    await q.query(`CREATE INDEX "idx_cdevent_receipts_received" ON "cdevent_receipts" ("received_at")`);
    await q.query(`ALTER TABLE "projects" ADD "cdevents_sink_header" jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "projects" DROP COLUMN "cdevents_sink_header"`);
    await q.query(`DROP TABLE "cdevent_receipts"`);
    await q.query(`DROP TABLE "cdevent_outbox"`);
  }
}
