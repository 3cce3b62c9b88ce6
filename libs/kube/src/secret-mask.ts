import type { KubeObject } from './types';

const MASK = '***';

/**
 * Masks a Secret's `data` and `stringData` for diffs: values become `***` when equal on both
 * sides and `*** (before)` / `*** (after)` when they differ, so a diff shows which keys changed
 * but never their contents. Non-Secrets are returned unchanged. Does not mutate its inputs.
 */
export function maskSecrets(live: KubeObject | undefined, desired: KubeObject | undefined): [KubeObject | undefined, KubeObject | undefined] {
  const isSecret = (o?: KubeObject) => !!o && o.kind === 'Secret' && (o.apiVersion === 'v1');
  if (!isSecret(live) && !isSecret(desired)) return [live, desired];
  const l = live ? structuredClone(live) : undefined;
  const d = desired ? structuredClone(desired) : undefined;
  for (const field of ['data', 'stringData'] as const) {
    const lv = (l?.[field] ?? undefined) as Record<string, string> | undefined;
    const dv = (d?.[field] ?? undefined) as Record<string, string> | undefined;
    const keys = new Set([...Object.keys(lv ?? {}), ...Object.keys(dv ?? {})]);
    for (const k of keys) {
      const changed = lv?.[k] !== dv?.[k];
      if (lv && k in lv) lv[k] = changed ? `${MASK} (before)` : MASK;
      if (dv && k in dv) dv[k] = changed ? `${MASK} (after)` : MASK;
    }
  }
  return [l, d];
}
