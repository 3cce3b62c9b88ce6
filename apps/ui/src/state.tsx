import type { FleetState } from './types';

/** Symbols repeat what the colour says, so the state reads without colour too. */
const SYMBOL: Record<FleetState, string> = {
  Failed: '✕',
  Stalled: '■',
  Stale: '?',
  Progressing: '↻',
  Deleting: '−',
  Suspended: '❚❚',
  Ready: '✓',
};

/** A Target phase as the page's state (the hub folds them the same way in SQL). */
export function stateOfTarget(phase: string, conditions: Array<{ type: string; status: string }>): FleetState {
  if (phase === 'Failed' && conditions.some((c) => c.type === 'Stalled' && c.status === 'True')) return 'Stalled';
  if (phase === 'Pending' || phase === 'Reconciling') return 'Progressing';
  return phase as FleetState;
}

export function StateBadge({ state, title }: { state: FleetState; title?: string }) {
  return (
    <span class={`state state-${state.toLowerCase()}`} title={title}>
      <span aria-hidden="true">{SYMBOL[state]}</span> {state}
    </span>
  );
}
