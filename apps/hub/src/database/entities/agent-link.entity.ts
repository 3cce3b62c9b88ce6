import { Column, Entity, Index, JoinColumn, OneToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { ClusterEntity } from './cluster.entity';

/**
 * The agent of one `mode: agent` cluster: how it proves who it is (only
 * hashes and certificate fingerprints are kept) and whether it is connected. Kept apart from the cluster
 * so resetting the agent never touches the cluster's history.
 */
@Entity('agent_links')
@Index('idx_agent_links_cert_fingerprint', ['certFingerprint'])
@Index('idx_agent_links_previous_cert_fingerprint', ['previousCertFingerprint'])
export class AgentLinkEntity {
  @PrimaryColumn({ name: 'cluster_id', type: 'uuid', primaryKeyConstraintName: 'pk_agent_links' })
  clusterId!: string;

  @OneToOne(() => ClusterEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'cluster_id', foreignKeyConstraintName: 'fk_agent_links_cluster' })
  cluster?: ClusterEntity;

  /** sha256 of the one-time bootstrap token; cleared when it is used */
  @Column({ name: 'bootstrap_token_hash', type: 'varchar', length: 64, nullable: true })
  bootstrapTokenHash!: string | null;

  @Column({ name: 'bootstrap_expires_at', type: 'timestamptz', nullable: true })
  bootstrapExpiresAt!: Date | null;

  /** sha256 of the DER of the agent's client certificate; null: revoked or never registered */
  @Column({ name: 'cert_fingerprint', type: 'varchar', length: 64, nullable: true })
  certFingerprint!: string | null;

  @Column({ name: 'cert_expires_at', type: 'timestamptz', nullable: true })
  certExpiresAt!: Date | null;

  /** the certificate a renewal replaced: still accepted until the agent uses the new one, or `previous_cert_until` */
  @Column({ name: 'previous_cert_fingerprint', type: 'varchar', length: 64, nullable: true })
  previousCertFingerprint!: string | null;

  @Column({ name: 'previous_cert_until', type: 'timestamptz', nullable: true })
  previousCertUntil!: Date | null;

  @Column({ type: 'boolean', default: false })
  connected!: boolean;

  /** when it last connected or disconnected */
  @Column({ name: 'status_since', type: 'timestamptz', nullable: true })
  statusSince!: Date | null;

  /** the hub replica holding its stream */
  @Column({ type: 'varchar', length: 128, nullable: true })
  replica!: string | null;

  @Column({ name: 'agent_version', type: 'varchar', length: 64, nullable: true })
  agentVersion!: string | null;

  @Column({ name: 'last_heartbeat_at', type: 'timestamptz', nullable: true })
  lastHeartbeatAt!: Date | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
