// Which service event an instance's run is, from the revision and the inventory.
export type ServiceChange = 'deployed' | 'upgraded' | 'rolledback';

export interface ServiceHistory {
  /** instances applied by the last successful run (`namespace/name`) */
  inventory: ReadonlySet<string>;
  /** the revision last applied successfully, null before the first */
  lastApplied: string | null;
  /** revisions applied successfully before `lastApplied` */
  earlier: ReadonlySet<string>;
}

/**
 * An instance not in the inventory is deployed; one in it on a new revision
 * is upgraded, or rolled back when that revision was applied before the
 * current one; on the same revision (drift correction) nothing happened (null).
 */
export function serviceChange(history: ServiceHistory, instance: string, revision: string): ServiceChange | null {
  if (!history.inventory.has(instance)) return 'deployed';
  if (revision === history.lastApplied) return null;
  return history.earlier.has(revision) ? 'rolledback' : 'upgraded';
}
