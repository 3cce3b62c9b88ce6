import type { SealedSinkHeader, SealedWebhook } from './cdevent-outbox.entity';
import type { AnnouncedWaves } from '../../rollout/wave-transitions';
import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import type { BootstrapRole } from '@flotilla/engine';
import type { RolloutOnFailure } from '../../rollout/on-failure';
import type { RolloutAction } from '../../rollout/rollout-actions';
import type { WindowSpec } from '../../rollout/rollout-windows';
import type { WaveSpec } from '../../rollout/wave-spec';
import { CredentialEntity } from './credential.entity';
import { TenantEntity } from './tenant.entity';

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** Which clusters a Project targets: a cluster matches if any given part matches. */
export interface TargetSelector {
  names?: string[];
  groups?: string[];
  labelSelector?: LabelSelector;
}

export const TARGET_REMOVALS = ['delete', 'orphan'] as const;
export type TargetRemoval = (typeof TARGET_REMOVALS)[number];

/** How many clusters the selector matches outside the tenant's destinations, and the first of them by name. */
export interface OutsideDestinations {
  count: number;
  clusters: string[];
}

/** A Project: an OCI source of Timoni definitions and where to apply it. */
@Entity('projects')
@Unique('uq_projects_name', ['name'])
@Index('idx_projects_source_checked_at', ['sourceCheckedAt'])
@Index('idx_projects_tenant_name', ['tenant', 'name'])
export class ProjectEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_projects' })
  id!: string;

  @Column({ type: 'varchar', length: 63 })
  name!: string;

  @Column({ type: 'varchar', length: 63 })
  namespace!: string;

  /** the tenant it belongs to, set at creation and never changed */
  @Column({ type: 'varchar', length: 63 })
  tenant!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'tenant', referencedColumnName: 'name', foreignKeyConstraintName: 'fk_projects_tenant' })
  tenantRow?: TenantEntity;

  /** clusters its selector matches outside its tenant's destinations (no Target there); null: none */
  @Column({ name: 'outside_destinations', type: 'jsonb', nullable: true })
  outsideDestinations!: OutsideDestinations | null;

  /** oci://host/repo */
  @Column({ name: 'source_repository', type: 'text' })
  sourceRepository!: string;

  @Column({ name: 'source_tag', type: 'varchar', length: 128, default: 'latest' })
  sourceTag!: string;

  @Column({ name: 'source_path', type: 'text', default: 'project.cue' })
  sourcePath!: string;

  @Column({ name: 'service_account_name', type: 'varchar', length: 253 })
  serviceAccountName!: string;

  @Column({ name: 'target_selector', type: 'jsonb', default: () => `'{}'` })
  targetSelector!: TargetSelector;

  @Column({ name: 'rollout_groups', type: 'jsonb', default: () => `'[]'` })
  rolloutGroups!: string[];

  /** `rollout.waves` as written (groups normalized); empty: one wave per group of rolloutGroups */
  @Column({ name: 'rollout_waves', type: 'jsonb', default: () => `'[]'` })
  rolloutWaves!: WaveSpec[];

  /** what a wave that goes past its failure budget does: halt, or roll its Targets back */
  @Column({ name: 'rollout_on_failure', type: 'varchar', length: 16, default: 'halt' })
  rolloutOnFailure!: RolloutOnFailure;

  /** approvals, holds and retries of its rollout, the last 50, oldest first */
  @Column({ name: 'rollout_actions', type: 'jsonb', default: () => `'[]'` })
  rolloutActions!: RolloutAction[];

  /** allow and deny windows (cron with a time zone): when a new revision may start reaching clusters */
  @Column({ name: 'rollout_windows', type: 'jsonb', default: () => `'[]'` })
  rolloutWindows!: WindowSpec[];

  @Column({ name: 'interval_seconds', type: 'integer', default: 600 })
  intervalSeconds!: number;

  @Column({ type: 'boolean', default: false })
  suspend!: boolean;

  @Column({ type: 'jsonb', default: () => `'{}'` })
  annotations!: Record<string, string>;

  @Column({ name: 'registry_credential_id', type: 'uuid', nullable: true })
  registryCredentialId!: string | null;

  @ManyToOne(() => CredentialEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'registry_credential_id', foreignKeyConstraintName: 'fk_projects_registry_credential' })
  registryCredential?: CredentialEntity | null;

  /** URL that receives CDEvents for this Project */
  @Column({ name: 'cdevents_sink', type: 'text', nullable: true })
  cdeventsSink!: string | null;

  /** a secret header sent with every event to the sink, sealed */
  @Column({ name: 'cdevents_sink_header', type: 'jsonb', nullable: true })
  cdeventsSinkHeader!: SealedSinkHeader | null;

  /** a chat webhook (Slack-compatible) told of every rollout wave transition, sealed: its URL is the credential */
  @Column({ name: 'notification_webhook', type: 'jsonb', nullable: true })
  notificationWebhook!: SealedWebhook | null;

  /** the wave states last announced for a revision; null (Projects from before notices): what the hub sees first is taken as announced */
  @Column({ name: 'rollout_wave_states', type: 'jsonb', nullable: true, default: () => `'{"states": [], "revision": ""}'` })
  rolloutWaveStates!: AnnouncedWaves | null;
  /** what happens to the instances on a cluster that leaves the targets: deleted, or left in place */
  @Column({ name: 'target_removal', type: 'varchar', length: 16, default: 'delete' })
  targetRemoval!: TargetRemoval;

  /** take over instances that another Project or owner holds (Timoni's --overwrite-ownership) */
  @Column({ name: 'overwrite_ownership', type: 'boolean', default: false })
  overwriteOwnership!: boolean;

  /** bootstrap on push clusters: the role bound to the service account (`admin` in the namespace, `cluster-admin`); null: none */
  @Column({ name: 'bootstrap_role', type: 'varchar', length: 16, nullable: true })
  bootstrapRole!: BootstrapRole | null;

  /** set when deletion with `instances=delete` was asked: Targets prune their instances, then the Project goes */
  @Column({ name: 'deletion_requested_at', type: 'timestamptz', nullable: true })
  deletionRequestedAt!: Date | null;

  /** digest behind `sourceTag` at the last poll */
  @Column({ name: 'source_digest', type: 'varchar', length: 71, nullable: true })
  sourceDigest!: string | null;

  /** last tag resolution (successful or not); the poller picks Projects whose check is due */
  @Column({ name: 'source_checked_at', type: 'timestamptz', nullable: true })
  sourceCheckedAt!: Date | null;

  /** why the last tag resolution failed; null after a success */
  @Column({ name: 'source_error', type: 'text', nullable: true })
  sourceError!: string | null;

  /** bumped on every spec change */
  @Column({ type: 'integer', default: 1 })
  generation!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
