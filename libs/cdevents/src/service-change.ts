// Which service event an instance's apply is, from the revisions it ran
// before and whether it is in the inventory now.

export type ServiceChange = 'deployed' | 'upgraded' | 'rolledback';

/** One instance's past: the revision it runs now (null: not in the inventory) and the revisions it ran before that. */
export interface InstanceHistory {
  current: string | null;
  earlier: ReadonlySet<string>;
}

/** One past run as the history reads it: its revision and what it did to each instance. */
export interface PastRun {
  revision: string | null;
  instances: Array<{ name: string; namespace: string; action: 'applied' | 'pruned' | 'deleted'; error?: unknown }>;
}

/**
 * Instance histories (`namespace/name` → history) from past runs, newest
 * first. A failed apply changes nothing: the instance still runs what it ran.
 */
export function instanceHistories(runs: readonly PastRun[]): Map<string, InstanceHistory> {
  const found = new Map<string, { current: string | null; earlier: Set<string> }>();
  for (const run of runs) {
    for (const i of run.instances) {
      if (i.error) continue;
      const key = `${i.namespace}/${i.name}`;
      let h = found.get(key);
      if (!h) {
        h = { current: i.action === 'applied' ? run.revision : null, earlier: new Set() };
        found.set(key, h);
      } else if (i.action === 'applied' && run.revision && run.revision !== h.current) {
        h.earlier.add(run.revision);
      }
    }
  }
  return found;
}

/**
 * Not running (never applied, or removed since) is deployed; on a new
 * revision it is upgraded, or rolled back when that revision ran before; on
 * the revision it runs (drift correction, a retry) nothing happened (null).
 */
export function serviceChange(history: InstanceHistory | undefined, revision: string): ServiceChange | null {
  if (!history || history.current === null) return 'deployed';
  if (revision === history.current) return null;
  return history.earlier.has(revision) ? 'rolledback' : 'upgraded';
}
