import { Check, Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

export type Role = 'admin' | 'operator' | 'viewer';
/** Who made a token: the API (an admin), FLOTILLA_ADMIN_TOKEN, or the hub at first start. */
export type TokenSource = 'api' | 'env' | 'generated';

/** An API bearer token; only its sha256 is stored. */
@Entity('api_tokens')
@Unique('uq_api_tokens_token_hash', ['tokenHash'])
@Check('ck_api_tokens_role', `"role" IN ('admin', 'operator', 'viewer')`)
@Check('ck_api_tokens_source', `"source" IN ('api', 'env', 'generated')`)
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

  /** 'env' tokens are revoked when FLOTILLA_ADMIN_TOKEN changes or is unset */
  @Column({ type: 'varchar', length: 16, default: 'api' })
  source!: TokenSource;
}
