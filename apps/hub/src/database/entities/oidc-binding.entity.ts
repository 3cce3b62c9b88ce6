import { Check, Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { TenantEntity } from './tenant.entity';
import type { Role } from './api-token.entity';

/** Which claim of a signed-in person a binding matches: one of their groups, or their subject. */
export type BindingClaim = 'group' | 'subject';
export const BINDING_CLAIMS: readonly BindingClaim[] = ['group', 'subject'];

/** Gives everyone whose token carries `value` in `claim` a role, in one tenant or (tenant null) everywhere. */
@Entity('oidc_bindings')
@Unique('uq_oidc_bindings_claim_value_tenant', ['claim', 'value', 'tenant'])
@Check('ck_oidc_bindings_claim', `"claim" IN ('group', 'subject')`)
@Check('ck_oidc_bindings_role', `"role" IN ('viewer', 'operator', 'admin')`)
@Check('ck_oidc_bindings_admin_global', `"role" <> 'admin' OR "tenant" IS NULL`)
export class OidcBindingEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_oidc_bindings' })
  id!: string;

  @Column({ type: 'varchar', length: 16 })
  claim!: BindingClaim;

  @Column({ type: 'varchar', length: 255 })
  value!: string;

  /** null: global */
  @Column({ type: 'varchar', length: 63, nullable: true })
  tenant!: string | null;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant', referencedColumnName: 'name', foreignKeyConstraintName: 'fk_oidc_bindings_tenant' })
  tenantRow?: TenantEntity;

  @Column({ type: 'varchar', length: 16 })
  role!: Role;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
