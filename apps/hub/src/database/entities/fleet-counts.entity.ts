import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { ProjectEntity } from './project.entity';

// Counts the read views show, written only by database triggers in the
// transactions that change what they count (migration 1764830000000 says how).

/** Targets of one Project per cluster group, phase, stalled (Failed with Stalled=True), stale (agent not connected) and unhealthy (Ready without Healthy=True). */
@Entity('target_counts')
export class TargetCountEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid', primaryKeyConstraintName: 'pk_target_counts' })
  projectId!: string;

  @ManyToOne(() => ProjectEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'project_id', foreignKeyConstraintName: 'fk_target_counts_project' })
  project?: ProjectEntity;

  @PrimaryColumn({ name: 'cluster_group', type: 'varchar', length: 63, primaryKeyConstraintName: 'pk_target_counts' })
  clusterGroup!: string;

  @PrimaryColumn({ type: 'varchar', length: 32, primaryKeyConstraintName: 'pk_target_counts' })
  phase!: string;

  @PrimaryColumn({ type: 'boolean', primaryKeyConstraintName: 'pk_target_counts' })
  stalled!: boolean;

  @PrimaryColumn({ type: 'boolean', primaryKeyConstraintName: 'pk_target_counts' })
  stale!: boolean;

  /** Ready without Healthy=True (migration 1764870000000) */
  @PrimaryColumn({ type: 'boolean', primaryKeyConstraintName: 'pk_target_counts' })
  unhealthy!: boolean;

  @Column({ type: 'integer', default: 0 })
  n!: number;
}

/** A transaction's changes to target_counts, folded in at its commit. */
@Entity('target_count_deltas')
@Index('idx_target_count_deltas_txid', ['txid'])
export class TargetCountDeltaEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'pk_target_count_deltas' })
  id!: string;

  @Column({ type: 'bigint' })
  txid!: string;

  @Column({ name: 'project_id', type: 'uuid' })
  projectId!: string;

  @Column({ name: 'cluster_group', type: 'varchar', length: 63 })
  clusterGroup!: string;

  @Column({ type: 'varchar', length: 32 })
  phase!: string;

  @Column({ type: 'boolean' })
  stalled!: boolean;

  @Column({ type: 'boolean' })
  stale!: boolean;

  @Column({ type: 'boolean' })
  unhealthy!: boolean;

  @Column({ type: 'integer' })
  n!: number;
}

/** Clusters and unreachable clusters of one group. */
@Entity('cluster_group_counts')
export class ClusterGroupCountEntity {
  @PrimaryColumn({ name: 'group_name', type: 'varchar', length: 63, primaryKeyConstraintName: 'pk_cluster_group_counts' })
  groupName!: string;

  @Column({ type: 'integer', default: 0 })
  clusters!: number;

  @Column({ type: 'integer', default: 0 })
  unreachable!: number;
}

/** A transaction's changes to cluster_group_counts, folded in at its commit. */
@Entity('cluster_count_deltas')
@Index('idx_cluster_count_deltas_txid', ['txid'])
export class ClusterCountDeltaEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'pk_cluster_count_deltas' })
  id!: string;

  @Column({ type: 'bigint' })
  txid!: string;

  @Column({ name: 'group_name', type: 'varchar', length: 63 })
  groupName!: string;

  @Column({ type: 'integer' })
  clusters!: number;

  @Column({ type: 'integer' })
  unreachable!: number;
}

/** Clusters whose agent (dis)connected in a transaction: their Targets are re-keyed at its commit. */
@Entity('cluster_rekeys')
@Index('idx_cluster_rekeys_txid', ['txid'])
export class ClusterRekeyEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'pk_cluster_rekeys' })
  id!: string;

  @Column({ type: 'bigint' })
  txid!: string;

  @Column({ name: 'cluster_id', type: 'uuid' })
  clusterId!: string;
}
