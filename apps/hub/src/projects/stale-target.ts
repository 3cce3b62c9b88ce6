import { agentDisconnectedStatus } from '@flotilla/engine';
import type { TargetViewRow } from '../repositories/targets.repository';

/**
 * A Target whose agent is away keeps what it last reported, but its Ready
 * condition says Unknown (the engine's agentDisconnectedStatus).
 */
export function markStale<T extends Pick<TargetViewRow, 'stale' | 'staleSince' | 'conditions' | 'cluster'>>(row: T): T {
  if (!row.stale) return row;
  return { ...row, conditions: agentDisconnectedStatus(row.cluster, row.staleSince, row.conditions) };
}
