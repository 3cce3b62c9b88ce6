import type { ReportError, ReportInstance } from '@flotilla/engine';
import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { TargetEntity } from './target.entity';

/** Abandoned: its replica lost the lease (or stopped) before writing a result. */
export type RunResultKind = 'Running' | 'Succeeded' | 'Failed' | 'Abandoned';

/** One reconcile attempt of a Target, kept as history. */
@Entity('runs')
@Index('idx_runs_target_started', ['targetId', 'startedAt'])
@Index('uq_runs_agent_report_id', ['agentReportId'], { unique: true })
export class RunEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_runs' })
  id!: string;

  @Column({ name: 'target_id', type: 'uuid' })
  targetId!: string;

  @ManyToOne(() => TargetEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'target_id', foreignKeyConstraintName: 'fk_runs_target' })
  target?: TargetEntity;

  @Column({ type: 'integer' })
  generation!: number;

  /** why it ran: Created, SpecChanged, NewRevision, Manual, Retry, Interval, Deletion */
  @Column({ type: 'varchar', length: 32, default: 'Interval' })
  trigger!: string;

  /** the hub replica that held the lease */
  @Column({ name: 'lease_owner', type: 'varchar', length: 128, nullable: true })
  leaseOwner!: string | null;

  @Column({ name: 'duration_ms', type: 'integer', nullable: true })
  durationMs!: number | null;

  /** tag@sha256:… */
  @Column({ type: 'text', nullable: true })
  revision!: string | null;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt!: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;

  @Column({ type: 'varchar', length: 16 })
  result!: RunResultKind;

  /** per instance applied, pruned or deleted: counts, objects, error */
  @Column({ type: 'jsonb', default: () => `'[]'` })
  instances!: ReportInstance[];

  /** the first error's message */
  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /** every error of the run, the first being the one the Ready condition names */
  @Column({ type: 'jsonb', default: () => `'[]'` })
  errors!: ReportError[];

  /** the agent's id of the report this run came from: a report replayed after a reconnect is stored once */
  @Column({ name: 'agent_report_id', type: 'varchar', length: 64, nullable: true })
  agentReportId!: string | null;
}
