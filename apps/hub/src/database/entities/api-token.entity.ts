import { Check, Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

export type Role = 'admin' | 'operator' | 'viewer';

/** An API bearer token; only its sha256 is stored. */
@Entity('api_tokens')
@Unique('uq_api_tokens_token_hash', ['tokenHash'])
@Check('ck_api_tokens_role', `"role" IN ('admin', 'operator', 'viewer')`)
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
}
