import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An inbound CDEvent taken by the receiver, by its (source, id): a replay is accepted once. */
@Entity('cdevent_receipts')
@Index('idx_cdevent_receipts_received', ['receivedAt'])
export class CdeventReceiptEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_cdevent_receipts' })
  source!: string;

  @PrimaryColumn({ name: 'event_id', type: 'text', primaryKeyConstraintName: 'pk_cdevent_receipts' })
  eventId!: string;

  @Column({ name: 'received_at', type: 'timestamptz', default: () => 'now()' })
  receivedAt!: Date;
}
