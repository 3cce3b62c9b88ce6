import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { ProjectEntity } from './project.entity';

/** Something that happened to a Project, on one cluster or on all. */
@Entity('events')
@Index('idx_events_project_created', ['projectId', 'createdAt'])
@Index('idx_events_project_cluster_created', ['projectId', 'clusterName', 'createdAt'])
export class EventEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_events' })
  id!: string;

  @Column({ name: 'project_id', type: 'uuid' })
  projectId!: string;

  @ManyToOne(() => ProjectEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'project_id', foreignKeyConstraintName: 'fk_events_project' })
  project?: ProjectEntity;

  /** kept by name so the event outlives the cluster */
  @Column({ name: 'cluster_name', type: 'varchar', length: 63, nullable: true })
  clusterName!: string | null;

  /** Normal or Warning */
  @Column({ type: 'varchar', length: 16 })
  type!: string;

  /** PascalCase, e.g. ReconcileRequested */
  @Column({ type: 'varchar', length: 64 })
  reason!: string;

  @Column({ type: 'text' })
  message!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
