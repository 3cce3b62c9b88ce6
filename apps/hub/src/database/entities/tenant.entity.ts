import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import type { BootstrapRole } from '@flotilla/engine';
import type { LabelSelector } from './project.entity';

/** Clusters a tenant's Projects may reach: a cluster is one when its group is listed or the label selector (when given) matches. */
export interface TenantDestinations {
  groups?: string[];
  labelSelector?: LabelSelector;
}

/** A team sharing the hub: what its Projects may use. Names never change; Projects and tokens refer to them. */
@Entity('tenants')
@Unique('uq_tenants_name', ['name'])
export class TenantEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_tenants' })
  id!: string;

  @Column({ type: 'varchar', length: 63 })
  name!: string;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ type: 'jsonb', default: () => `'{}'` })
  destinations!: TenantDestinations;

  /** names, or prefixes ending in `*` */
  @Column({ type: 'jsonb', default: () => `'[]'` })
  namespaces!: string[];

  /** names, or prefixes ending in `*` */
  @Column({ name: 'service_accounts', type: 'jsonb', default: () => `'[]'` })
  serviceAccounts!: string[];

  /** oci:// prefixes a Project's source must lie under */
  @Column({ type: 'jsonb', default: () => `'[]'` })
  repositories!: string[];

  /** the bootstrap roles its Projects may ask for; empty: no bootstrap */
  @Column({ name: 'bootstrap_roles', type: 'jsonb', default: () => `'[]'` })
  bootstrapRoles!: BootstrapRole[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
