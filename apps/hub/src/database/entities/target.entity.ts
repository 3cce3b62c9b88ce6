import type { ReportComponent } from '@flotilla/engine';
import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import { ClusterEntity } from './cluster.entity';
import { ProjectEntity } from './project.entity';

export type { Condition } from '@flotilla/engine';
import type { Condition } from '@flotilla/engine';

export const TARGET_PHASES = ['Pending', 'Reconciling', 'Ready', 'Failed', 'Suspended', 'Deleting'] as const;
export type TargetPhase = (typeof TARGET_PHASES)[number];

/** One Project placed on one Cluster: the unit that is scheduled, leased, retried and reported. */
@Entity('targets')
@Unique('uq_targets_project_cluster', ['projectId', 'clusterId'])
@Index('idx_targets_cluster', ['clusterId'])
@Index('idx_targets_project_phase', ['projectId', 'phase'])
@Index('idx_targets_next_run_at', ['nextRunAt'])
@Index('idx_targets_project_cluster_name', ['projectId', 'clusterName'])
// partial, on a JSON containment: written in migration 1764830000000
@Index('idx_targets_rollout_waiting', { synchronize: false })
export class TargetEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_targets' })
  id!: string;

  @Column({ name: 'project_id', type: 'uuid' })
  projectId!: string;

  @ManyToOne(() => ProjectEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'project_id', foreignKeyConstraintName: 'fk_targets_project' })
  project?: ProjectEntity;

  @Column({ name: 'cluster_id', type: 'uuid' })
  clusterId!: string;

  @ManyToOne(() => ClusterEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'cluster_id', foreignKeyConstraintName: 'fk_targets_cluster' })
  cluster?: ClusterEntity;

  /** the Project generation this Target should reach */
  @Column({ type: 'integer', default: 1 })
  generation!: number;

  @Column({ name: 'observed_generation', type: 'integer', nullable: true })
  observedGeneration!: number | null;

  @Column({ type: 'varchar', length: 32, default: 'Pending' })
  phase!: TargetPhase;

  /** tag@sha256:… of the last successful apply */
  @Column({ name: 'last_applied_revision', type: 'text', nullable: true })
  lastAppliedRevision!: string | null;

  @Column({ type: 'jsonb', default: () => `'[]'` })
  conditions!: Condition[];

  /** the cluster group this Target is counted under in target_counts: derived by a trigger, never written by the hub */
  @Column({ name: 'count_group', type: 'varchar', length: 63, default: '', select: false, insert: false, update: false })
  countGroup!: string;

  /** its cluster's name, copied by a trigger so a Project's Targets are listed in index order; never written by the hub */
  @Column({ name: 'cluster_name', type: 'varchar', length: 63, default: '', select: false, insert: false, update: false })
  clusterName!: string;

  /** counted as stale (agent cluster, agent not connected): derived by a trigger, never written by the hub */
  @Column({ name: 'count_stale', type: 'boolean', default: false, select: false, insert: false, update: false })
  countStale!: boolean;

  /** since when lastAppliedRevision is what it is; kept by a database trigger */
  @Column({ name: 'revision_since', type: 'timestamptz', nullable: true, insert: false, update: false })
  revisionSince!: Date | null;

  /** since when it is Ready and Healthy on lastAppliedRevision (null: it is not); kept by a database trigger, a rollout wave soaks on it */
  @Column({ name: 'healthy_since', type: 'timestamptz', nullable: true, insert: false, update: false })
  healthySince!: Date | null;

  /** the last revision it was Ready and Healthy on; kept by the same trigger, a rollback returns to it */
  @Column({ name: 'last_healthy_revision', type: 'text', nullable: true, insert: false, update: false })
  lastHealthyRevision!: string | null;

  /** components and their instances as the engine last reported them */
  @Column({ type: 'jsonb', default: () => `'[]'` })
  components!: ReportComponent[];

  /** namespaces that still hold instances of the Project on this cluster: every later run searches them */
  @Column({ type: 'jsonb', default: () => `'[]'` })
  namespaces!: string[];

  /** a rollout wave opened on this revision for the Target: a run that applied another one runs again at once */
  @Column({ name: 'advance_to_revision', type: 'text', nullable: true })
  advanceToRevision!: string | null;

  /** the cluster left the Project's targets: the Target (phase Deleting) deletes its instances there, then goes */
  @Column({ name: 'removal_requested_at', type: 'timestamptz', nullable: true })
  removalRequestedAt!: Date | null;

  @Column({ name: 'next_run_at', type: 'timestamptz', default: () => 'now()' })
  nextRunAt!: Date;

  /** consecutive failures, for backoff */
  @Column({ type: 'integer', default: 0 })
  attempt!: number;

  @Column({ name: 'lease_owner', type: 'varchar', length: 128, nullable: true })
  leaseOwner!: string | null;

  @Column({ name: 'lease_expires_at', type: 'timestamptz', nullable: true })
  leaseExpiresAt!: Date | null;

  /** bumped on every claim: a run may write its result only while the epoch it claimed is current (fencing) */
  @Column({ name: 'lease_epoch', type: 'integer', default: 0 })
  leaseEpoch!: number;

  /** agent clusters: the generation of the assignment last written (each one a new desired state the agent acts on at once) */
  @Column({ name: 'agent_generation', type: 'integer', nullable: true })
  agentGeneration!: number | null;

  /** agent clusters: the digest that assignment pinned */
  @Column({ name: 'agent_digest', type: 'text', nullable: true })
  agentDigest!: string | null;

  /** agent clusters: when the agent said it runs the Target next (it is the Target's clock) */
  @Column({ name: 'agent_next_run_at', type: 'timestamptz', nullable: true })
  agentNextRunAt!: Date | null;

  /** agent clusters: why the last assignment was sent, the trigger of the run that answers it */
  @Column({ name: 'agent_trigger', type: 'varchar', length: 32, nullable: true })
  agentTrigger!: string | null;

  /** agent clusters: the Project generation the last assignment carried */
  @Column({ name: 'agent_project_generation', type: 'integer', nullable: true })
  agentProjectGeneration!: number | null;

  /** agent clusters: SHA-256 of the last assignment's content (its generation and credentials aside): the same again is not sent */
  @Column({ name: 'agent_fingerprint', type: 'varchar', length: 64, nullable: true })
  agentFingerprint!: string | null;

  /** agent clusters: the assignment generation of the last report stored */
  @Column({ name: 'agent_reported_generation', type: 'integer', nullable: true })
  agentReportedGeneration!: number | null;

  /** set by a manual reconcile request, cleared by the run that served it */
  @Column({ name: 'reconcile_requested_at', type: 'timestamptz', nullable: true })
  reconcileRequestedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
