import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A fleet diff asked on one replica of an agent connected to another: the
 * request (with an uploaded artifact, too large for a notice) and, once the
 * agent answered through its replica, the answer. Lives only as long as the
 * asking replica waits.
 */
@Entity('agent_diff_relays')
export class AgentDiffRelayEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_agent_diff_relays' })
  id!: string;

  @Column({ name: 'cluster_id', type: 'uuid' })
  clusterId!: string;

  @Column({ name: 'target_id', type: 'uuid' })
  targetId!: string;

  /** { digest?, tag? } */
  @Column({ type: 'jsonb' })
  source!: { digest?: string; tag?: string };

  @Column({ type: 'bytea', nullable: true })
  artifact!: Buffer | null;

  /** the agent's DiffResult, once it came */
  @Column({ type: 'jsonb', nullable: true })
  answer!: { unsupported: boolean; diffJson: string; error: string } | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
