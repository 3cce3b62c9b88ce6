// What the status page shows of a Target: its phase folded into the states an
// operator acts on. Defined once here and computed in SQL, so the counts by
// group and the matrix cells can never disagree.

/**
 * Ordered from "look here first" to "fine". `Stale`: the cluster's agent is
 * disconnected, so the last report may be out of date; never shown as Ready.
 */
export const FLEET_STATES = ['Failed', 'Stalled', 'Stale', 'Progressing', 'Deleting', 'Suspended', 'Ready'] as const;
export type FleetState = (typeof FLEET_STATES)[number];

/**
 * The state of the Target row `t` on the cluster row `c` as an SQL
 * expression: a failure whose Stalled condition holds will not clear by
 * retrying alone; Pending and Reconciling are both work under way.
 */
export function targetStateSql(t: string, c: string): string {
  return `CASE
    WHEN ${c}.mode = 'agent' AND NOT EXISTS (SELECT 1 FROM agent_links al WHERE al.cluster_id = ${c}.id AND al.connected) THEN 'Stale'
    WHEN ${t}.phase = 'Failed' AND ${t}.conditions @> '[{"type": "Stalled", "status": "True"}]' THEN 'Stalled'
    WHEN ${t}.phase IN ('Pending', 'Reconciling') THEN 'Progressing'
    ELSE ${t}.phase END`;
}
