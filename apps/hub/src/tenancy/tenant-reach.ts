import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/roles';
import type { TenantDestinations } from '../database/entities';
import { TenantsRepository } from '../repositories/tenants.repository';
import { tenantsAllowed } from './tenant-scope';

/** What a tenant member may see: its tenants' Projects, and the clusters their destinations hold. */
export interface TenantReach {
  tenants: string[];
  destinations: TenantDestinations[];
}

/** The reach of a principal, read per request (a tenant's destinations may change at any time); undefined: global. */
@Injectable()
export class TenantReaches {
  constructor(private readonly tenants: TenantsRepository) {}

  async of(principal: Principal | undefined): Promise<TenantReach | undefined> {
    const names = tenantsAllowed(principal, 'viewer');
    if (names === undefined) return undefined;
    const rows = await this.tenants.findByNames(names);
    return { tenants: rows.map((t) => t.name), destinations: rows.map((t) => t.destinations) };
  }
}
