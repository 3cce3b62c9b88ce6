import type { FleetState } from './types';

/** Symbols repeat what the colour says, so the state reads without colour too. */
const SYMBOL: Record<FleetState, string> = {
  Failed: '✕',
  Stalled: '■',
  Stale: '?',
  Unhealthy: '▲',
  Progressing: '↻',
  Deleting: '−',
  Suspended: '❚❚',
  Ready: '✓',
};

/**
 * Healthy is phase Ready with a `Healthy=True` condition: the one rule the hub
 * uses for rollout gating (targets.healthy_since) and its fleet counts
 * (apps/hub/src/fleet/fleet-state.ts).
 */
export function isHealthy(phase: string, conditions: Array<{ type: string; status: string }>): boolean {
  return phase === 'Ready' && conditions.some((c) => c.type === 'Healthy' && c.status === 'True');
}

/** A Target phase as the page's state (the hub folds them the same way in SQL). */
export function stateOfTarget(phase: string, conditions: Array<{ type: string; status: string }>): FleetState {
  if (phase === 'Failed' && conditions.some((c) => c.type === 'Stalled' && c.status === 'True')) return 'Stalled';
  if (phase === 'Pending' || phase === 'Reconciling') return 'Progressing';
  // applied, but not healthy (Healthy False or Unknown): never a plain green Ready
  if (phase === 'Ready' && !isHealthy(phase, conditions)) return 'Unhealthy';
  return phase as FleetState;
}

export function StateBadge({ state, title }: { state: FleetState; title?: string }) {
  return (
    <span class={`state state-${state.toLowerCase()}`} title={title}>
      <span aria-hidden="true">{SYMBOL[state]}</span> {state}
    </span>
  );
}
