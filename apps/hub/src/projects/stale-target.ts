import type { Condition } from '@flotilla/engine';
import type { TargetViewRow } from '../repositories/targets.repository';

/**
 * A Target whose agent is away keeps what it last reported, but its Ready
 * condition says Unknown: nobody vouches for the cluster now. The reported
 * verdict stays in the message.
 */
export function markStale<T extends Pick<TargetViewRow, 'stale' | 'staleSince' | 'conditions' | 'cluster'>>(row: T): T {
  if (!row.stale) return row;
  const ready = row.conditions.find((c) => c.type === 'Ready');
  const away = row.staleSince ? `the agent of cluster ${row.cluster} has been disconnected since ${row.staleSince}` : `the agent of cluster ${row.cluster} has not connected yet`;
  const message = ready ? `${away}; it last reported ${ready.status === 'True' ? 'Ready' : `not Ready (${ready.reason})`}: ${ready.message}` : away;
  const stale: Condition = { type: 'Ready', status: 'Unknown', reason: 'AgentDisconnected', message, lastTransitionTime: row.staleSince ?? ready?.lastTransitionTime ?? new Date(0).toISOString() };
  return { ...row, conditions: [stale, ...row.conditions.filter((c) => c.type !== 'Ready')] };
}
