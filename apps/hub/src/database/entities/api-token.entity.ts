import { Check, Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { TenantEntity } from './tenant.entity';

export type Role = 'admin' | 'operator' | 'viewer';
/** Who made a token: the API (an admin), FLOTILLA_ADMIN_TOKEN, or the hub at first start. */
export type TokenSource = 'api' | 'env' | 'generated';

/** An API bearer token; only its sha256 is stored. */
@Entity('api_tokens')
@Unique('uq_api_tokens_token_hash', ['tokenHash'])
@Check('ck_api_tokens_role', `"role" IN ('admin', 'operator', 'viewer')`)
@Check('ck_api_tokens_source', `"source" IN ('api', 'env', 'generated')`)
@Check('ck_api_tokens_tenant_role', `"tenant" IS NULL OR "role" IN ('operator', 'viewer')`)
export class ApiTokenEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_api_tokens' })
  id!: string;

  @Column({ type: 'varchar', length: 63 })
  name!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: Role;

  /** hex sha256 of the token */
  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  /** null: never expires (allowed only while no maximum lifetime is configured) */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  /** the tenant it acts in (with `role` viewer or operator); null: global. Deleting the tenant deletes it. */
  @Column({ type: 'varchar', length: 63, nullable: true })
  tenant!: string | null;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant', referencedColumnName: 'name', foreignKeyConstraintName: 'fk_api_tokens_tenant' })
  tenantRow?: TenantEntity;

  /** 'env' tokens are revoked when FLOTILLA_ADMIN_TOKEN changes or is unset */
  @Column({ type: 'varchar', length: 16, default: 'api' })
  source!: TokenSource;
}
