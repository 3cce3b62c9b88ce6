import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import { CredentialEntity } from './credential.entity';

export type ClusterMode = 'push' | 'agent';

/** A spoke cluster in the inventory. */
@Entity('clusters')
@Unique('uq_clusters_name', ['name'])
@Index('idx_clusters_group_name_name', ['groupName', 'name'])
@Index('idx_clusters_api_server_identity', ['apiServerIdentity'])
// GIN with jsonb_path_ops, which TypeORM cannot declare: made by the ReadPaths migration, left alone by schema sync
@Index('idx_clusters_labels', { synchronize: false })
@Check('ck_clusters_mode', `"mode" IN ('push', 'agent')`)
export class ClusterEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_clusters' })
  id!: string;

  @Column({ type: 'varchar', length: 63 })
  name!: string;

  @Column({ name: 'group_name', type: 'varchar', length: 63, default: 'default' })
  groupName!: string;

  @Column({ type: 'jsonb', default: () => `'{}'` })
  labels!: Record<string, string>;

  @Column({ type: 'varchar', length: 16 })
  mode!: ClusterMode;

  /** API server URL (push clusters) */
  @Column({ type: 'text', nullable: true })
  server!: string | null;

  @Column({ name: 'ca_data', type: 'text', nullable: true })
  caData!: string | null;

  @Column({ name: 'insecure_skip_tls_verify', type: 'boolean', default: false })
  insecureSkipTlsVerify!: boolean;

  @Column({ name: 'credential_id', type: 'uuid', nullable: true })
  credentialId!: string | null;

  @ManyToOne(() => CredentialEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'credential_id', foreignKeyConstraintName: 'fk_clusters_credential' })
  credential?: CredentialEntity | null;

  /** null until the first connectivity check */
  @Column({ type: 'boolean', nullable: true })
  reachable!: boolean | null;

  /** uid of the API server's kube-system Namespace: the same server registered twice shares it */
  @Column({ name: 'api_server_identity', type: 'varchar', length: 64, nullable: true })
  apiServerIdentity!: string | null;

  @Column({ name: 'server_version', type: 'varchar', length: 64, nullable: true })
  serverVersion!: string | null;

  @Column({ name: 'last_checked_at', type: 'timestamptz', nullable: true })
  lastCheckedAt!: Date | null;

  /** why the last check failed */
  @Column({ name: 'status_message', type: 'text', nullable: true })
  statusMessage!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
