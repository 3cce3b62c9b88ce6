import { formatSubject } from './object-id';
import type { ChangeAction, ChangeSet, ChangeSetEntry, VersionedObjectRef } from './types';

export function changeSetEntry(ref: VersionedObjectRef, action: ChangeAction, reason?: string): ChangeSetEntry {
  return reason ? { ref, subject: formatSubject(ref), action, reason } : { ref, subject: formatSubject(ref), action };
}

export function emptyChangeSet(): ChangeSet {
  return { entries: [] };
}

/** Appends the entries of `others` to `into` (returns `into`). */
export function mergeChangeSets(into: ChangeSet, ...others: ChangeSet[]): ChangeSet {
  for (const o of others) into.entries.push(...o.entries);
  return into;
}

/** Counts per action, e.g. for a Run row (created/updated/deleted/unchanged). */
export function countActions(cs: ChangeSet): Record<ChangeAction, number> {
  const counts: Record<ChangeAction, number> = { created: 0, configured: 0, unchanged: 0, deleted: 0, skipped: 0 };
  for (const e of cs.entries) counts[e.action]++;
  return counts;
}

/** Lines like `Deployment/apps/web configured`, the way Timoni logs a change set. */
export function formatChangeSet(cs: ChangeSet): string[] {
  return cs.entries.map((e) => `${e.subject} ${e.action}${e.reason ? ` (${e.reason})` : ''}`);
}
