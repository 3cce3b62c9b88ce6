// Per-instance counts of what apply and prune did, for Run rows and events.
import type { ChangeSetEntry } from '@flotilla/kube';
import type { ChangeCounts } from './types';

export function emptyCounts(): ChangeCounts {
  return { created: 0, configured: 0, unchanged: 0, deleted: 0, skipped: 0 };
}

export function countChanges(entries: readonly ChangeSetEntry[]): ChangeCounts {
  const counts = emptyCounts();
  for (const e of entries) counts[e.action]++;
  return counts;
}

export function addCounts(a: ChangeCounts, b: ChangeCounts): ChangeCounts {
  return {
    created: a.created + b.created,
    configured: a.configured + b.configured,
    unchanged: a.unchanged + b.unchanged,
    deleted: a.deleted + b.deleted,
    skipped: a.skipped + b.skipped,
  };
}
