// What operators did to a Project's rollout: approvals of a wave for a
// revision, holds and their release by a retry. Kept on the Project (the
// last MAX_ACTIONS), so every decision that reads the Project sees them.
import type { DecideOptions } from './rollout';

export const ROLLOUT_ACTIONS = ['approve', 'hold', 'retry', 'rollback'] as const;
export type RolloutActionKind = (typeof ROLLOUT_ACTIONS)[number];

export interface RolloutAction {
  action: RolloutActionKind;
  /** the revision it was taken on (tag@sha256:…) */
  revision: string;
  /** approve: the wave approved; rollback: the wave rolled back */
  wave?: number;
  /** who: the token's name, or the signed-in person's email */
  by: string;
  /** RFC 3339 */
  at: string;
}

export const MAX_ACTIONS = 50;

/** The approvals and hold that apply to `revision`: a hold stands until a retry, whatever the revision. */
export function decideOptions(actions: readonly RolloutAction[] | null | undefined, revision: string): DecideOptions {
  const list = actions ?? [];
  const approved = new Set(list.filter((a) => a.action === 'approve' && a.revision === revision && a.wave !== undefined).map((a) => a.wave!));
  const last = [...list].reverse().find((a) => a.action === 'hold' || a.action === 'retry');
  const rollback = rolledBack(list, revision);
  return { approved, onHold: last?.action === 'hold', ...(rollback ? { rolledBackWave: rollback.wave ?? 0 } : {}) };
}

/** The rollback of `revision` that stands (no retry after it), if any. */
export function rolledBack(actions: readonly RolloutAction[] | null | undefined, revision: string): RolloutAction | undefined {
  const last = [...(actions ?? [])].reverse().find((a) => a.revision === revision && (a.action === 'rollback' || a.action === 'retry'));
  return last?.action === 'rollback' ? last : undefined;
}
