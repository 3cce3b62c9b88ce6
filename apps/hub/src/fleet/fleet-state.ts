// What the status page shows of a Target: its phase folded into the states an
// operator acts on. Defined once here and computed in SQL, so the counts by
// group and the matrix cells can never disagree.

/**
 * Ordered from "look here first" to "fine". `Stale`: the cluster's agent is
 * disconnected, so the last report may be out of date; never shown as Ready.
 * `Unhealthy`: applied (phase Ready) but what was applied is not healthy, so
 * never shown as a plain Ready either.
 */
export const FLEET_STATES = ['Failed', 'Stalled', 'Stale', 'Unhealthy', 'Progressing', 'Deleting', 'Suspended', 'Ready'] as const;
export type FleetState = (typeof FLEET_STATES)[number];

/** The columns a state is decided from: SQL expressions of a Target row or of a target_counts row. */
export interface StateInputsSql {
  phase: string;
  /** Failed with a Stalled=True condition */
  stalled: string;
  /** on an agent cluster whose agent is not connected */
  stale: string;
  /** Ready without a Healthy=True condition (see UNHEALTHY_SQL) */
  unhealthy: string;
}

/**
 * The one rule for "healthy" (the same as targets.healthy_since, migration
 * 1764850000000): phase Ready with a `Healthy=True` condition. A Target Ready
 * without one (Healthy False or Unknown) is Unhealthy. An SQL boolean of the
 * Target row `t`; the page applies the same rule (apps/ui/src/state.tsx).
 */
export function unhealthySql(t: string): string {
  return `(${t}.phase = 'Ready' AND NOT ${t}.conditions @> '[{"type": "Healthy", "status": "True"}]')`;
}

/**
 * The state as an SQL expression: a failure whose Stalled condition holds
 * will not clear by retrying alone; Pending and Reconciling are both work
 * under way; Ready but not Healthy is Unhealthy.
 */
export function fleetStateSql(k: StateInputsSql): string {
  return `CASE
    WHEN ${k.stale} THEN 'Stale'
    WHEN ${k.phase} = 'Failed' AND ${k.stalled} THEN 'Stalled'
    WHEN ${k.phase} IN ('Pending', 'Reconciling') THEN 'Progressing'
    WHEN ${k.phase} = 'Ready' AND ${k.unhealthy} THEN 'Unhealthy'
    ELSE ${k.phase} END`;
}

/** The state of the Target row `t` (its count_stale is kept by the database from its cluster and agent link). */
export function targetStateSql(t: string): string {
  return fleetStateSql({ phase: `${t}.phase`, stalled: `${t}.conditions @> '[{"type": "Stalled", "status": "True"}]'`, stale: `${t}.count_stale`, unhealthy: unhealthySql(t) });
}

/** The state of the target_counts row `tc`. */
export function countedStateSql(tc: string): string {
  return fleetStateSql({ phase: `${tc}.phase`, stalled: `${tc}.stalled`, stale: `${tc}.stale`, unhealthy: `${tc}.unhealthy` });
}
