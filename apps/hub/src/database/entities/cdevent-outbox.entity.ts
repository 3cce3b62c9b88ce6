import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** What an outbox row's body is: a CDEvent to a sink, or a Slack-compatible message to a chat webhook. */
export const OUTBOX_FORMATS = ['cdevent', 'slack'] as const;
export type OutboxFormat = (typeof OUTBOX_FORMATS)[number];

/** A chat webhook's URL, sealed for its Project (the URL is the credential); `shown` is what anyone may see of it. */
export interface SealedWebhook {
  /** scheme and host only */
  shown: string;
  keyId: string;
  envelope: string;
}

/** A sink's secret header, sealed like every credential (the value never leaves sealed except into the request). */
export interface SealedSinkHeader {
  name: string;
  /** sealed for its Project and sink URL (associated data); absent: sealed by a hub before bindings, re-sealed at start */
  bound?: true;
  keyId: string;
  envelope: string;
}

/**
 * One CDEvent to deliver to a Project's sink, written in the transaction of
 * the change it tells about. Kept without a foreign key: the Project's
 * deletion is itself an event still to deliver. The sink is copied in, so a
 * later change of sink does not reroute events already decided.
 */
@Entity('cdevent_outbox')
@Index('idx_cdevent_outbox_pending', ['projectId', 'format', 'id'], { where: `"state" = 'pending'` })
@Index('idx_cdevent_outbox_project_name', ['projectName', 'id'])
export class CdeventOutboxEntity {
  /** the order of delivery within a Project */
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'pk_cdevent_outbox' })
  id!: string;

  /** the CDEvent's context.id: stable across retries, so a sink can deduplicate */
  @Column({ name: 'event_id', type: 'uuid', unique: true })
  eventId!: string;

  @Column({ name: 'project_id', type: 'uuid' })
  projectId!: string;

  @Column({ name: 'project_name', type: 'varchar', length: 63 })
  projectName!: string;

  /** dev.cdevents.… */
  @Column({ type: 'varchar', length: 128 })
  type!: string;

  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  @Column({ name: 'sink_url', type: 'text' })
  sinkUrl!: string;

  @Column({ name: 'sink_header', type: 'jsonb', nullable: true })
  sinkHeader!: SealedSinkHeader | null;

  /** the body's format; `slack` rows go to `webhook`, and `sinkUrl` holds only its scheme and host */
  @Column({ type: 'varchar', length: 16, default: 'cdevent' })
  format!: OutboxFormat;

  /** the chat webhook of a `slack` row, sealed as its Project held it */
  @Column({ type: 'jsonb', nullable: true })
  webhook!: SealedWebhook | null;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  state!: DeliveryState;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt!: Date;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt!: Date | null;

  /** the replica delivering it, until `leaseExpiresAt` */
  @Column({ name: 'lease_owner', type: 'varchar', length: 128, nullable: true })
  leaseOwner!: string | null;

  @Column({ name: 'lease_expires_at', type: 'timestamptz', nullable: true })
  leaseExpiresAt!: Date | null;
}
