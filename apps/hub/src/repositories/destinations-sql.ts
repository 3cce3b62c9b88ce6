import type { TenantDestinations } from '../database/entities';
import { labelSelectorConditions } from './label-selector-sql';
import type { SqlParams } from './sql';

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
