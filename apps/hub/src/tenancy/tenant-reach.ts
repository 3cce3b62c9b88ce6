import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/roles';
import { Clock } from '../common/clock';
import type { TenantDestinations } from '../database/entities';
import { NotificationBus } from '../notify/notification-bus';
import { TenantsRepository } from '../repositories/tenants.repository';
import { tenantsAllowed } from './tenant-scope';

/** What a tenant member may see: its tenants' Projects, and the clusters their destinations hold. */
export interface TenantReach {
  tenants: string[];
  destinations: TenantDestinations[];
}

/** How long another replica's tenant change may take to reach this one when its notice is lost (as for tokens). */
export const TENANT_REACH_TTL_MS = 2000;
const MAX_ENTRIES = 1000;

/**
 * The reach of a principal; undefined: global. A tenant's destinations may
 * change at any time, so reaches are kept only briefly: a change through any
 * replica (the `tenants-changed` notice) drops them at once, and the TTL
 * bounds a lost notice. A busy member then costs one tenant read per TTL,
 * not one per request.
 */
@Injectable()
export class TenantReaches {
  private readonly cache = new Map<string, { reach: TenantReach; until: number }>();
  /** bumped by each change: a read that began before it keeps no copy of what it read */
  private generation = 0;

  constructor(
    private readonly tenants: TenantsRepository,
    private readonly clock: Clock,
    bus: NotificationBus,
  ) {
    bus.on((n) => {
      if (n.topic !== 'tenants-changed') return;
      this.generation++;
      this.cache.clear();
    });
  }

  async of(principal: Principal | undefined): Promise<TenantReach | undefined> {
    const names = tenantsAllowed(principal, 'viewer');
    if (names === undefined) return undefined;
    const key = names.join('\n');
    const now = this.clock.now().getTime();
    const kept = this.cache.get(key);
    if (kept && kept.until > now) return kept.reach;
    const generation = this.generation;
    const rows = await this.tenants.findByNames(names);
    const reach = { tenants: rows.map((t) => t.name), destinations: rows.map((t) => t.destinations) };
    if (generation !== this.generation) return reach;
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    this.cache.set(key, { reach, until: now + TENANT_REACH_TTL_MS });
    return reach;
  }
}
