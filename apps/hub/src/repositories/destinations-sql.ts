import type { TenantDestinations } from '../database/entities';
import type { TenantReach } from '../tenancy/tenant-reach';
import { labelSelectorConditions, variesInShape } from './label-selector-sql';
import type { SqlParams } from './sql';

/** Past this many label destinations a reach's SQL is not prepared: its shapes (two per such destination) stay few. */
const MAX_PREPARED_LABEL_DESTINATIONS = 4;

/**
 * Whether the SQL destinationsCondition writes for a member's reach takes
 * too many shapes to keep prepared on every connection (see queryPrepared).
 * Tenants' destinations are set by admins, so a hub sees few shapes; a
 * selector with expressions, or a member of many label-selected tenants,
 * is planned per request instead.
 */
export function reachVariesInShape(reach: TenantReach | undefined): boolean {
  if (!reach) return false;
  const labelled = reach.destinations.filter((d) => d.labelSelector !== undefined);
  return labelled.length > MAX_PREPARED_LABEL_DESTINATIONS || labelled.some((d) => variesInShape(d.labelSelector));
}

/** A SQL condition on cluster alias `c`: the cluster lies in at least one of the destinations (none given: false). Same rule as inDestinations. */
export function destinationsCondition(c: string, destinations: readonly TenantDestinations[], params: SqlParams): string {
  const parts: string[] = [];
  const groups = [...new Set(destinations.flatMap((d) => d.groups ?? []))];
  if (groups.length > 0) parts.push(`${c}.group_name = ANY(${params.add(groups)})`);
  for (const d of destinations) {
    if (d.labelSelector === undefined) continue;
    const conditions = labelSelectorConditions(`${c}.labels`, d.labelSelector, params);
    parts.push(conditions.length === 0 ? 'true' : `(${conditions.join(' AND ')})`);
  }
  return parts.length === 0 ? 'false' : `(${parts.join(' OR ')})`;
}
