import type { KubeObject } from './types';

/** Behaviour annotations (§5.3); read from labels or annotations, value case-insensitive. */
export const ACTION_FORCE = 'action.timoni.sh/force';
export const ACTION_ONE_OFF = 'action.timoni.sh/one-off';
export const ACTION_PRUNE = 'action.timoni.sh/prune';
export const ACTION_WAIT = 'action.timoni.sh/wait';
export const ENABLED = 'enabled';
export const DISABLED = 'disabled';

function hasAction(obj: KubeObject | undefined, key: string, value: string): boolean {
  if (!obj?.metadata) return false;
  const { labels, annotations } = obj.metadata;
  return [labels?.[key], annotations?.[key]].some((v) => typeof v === 'string' && v.toLowerCase() === value);
}

/** Recreate on immutable-field errors. */
export function isForceEnabled(obj: KubeObject | undefined): boolean {
  return hasAction(obj, ACTION_FORCE, ENABLED);
}

/** Apply only when the object does not exist yet. */
export function isOneOff(obj: KubeObject | undefined): boolean {
  return hasAction(obj, ACTION_ONE_OFF, ENABLED);
}

/** Never deleted by prune or uninstall. */
export function isPruneDisabled(obj: KubeObject | undefined): boolean {
  return hasAction(obj, ACTION_PRUNE, DISABLED);
}

/** Left out of the readiness wait. */
export function isWaitDisabled(obj: KubeObject | undefined): boolean {
  return hasAction(obj, ACTION_WAIT, DISABLED);
}
