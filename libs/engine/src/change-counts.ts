// Per-instance counts of what apply and prune did, for Run rows and events.
import type { ChangeSetEntry } from '@flotilla/kube';
import type { ChangeCounts, RunResult } from './types';

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

/** One row per instance applied or pruned, as the hub stores it in `runs.instances`. */
export interface InstanceSummary extends ChangeCounts {
  name: string;
  namespace: string;
  component: string;
  action: 'applied' | 'pruned';
  moduleVersion?: string;
  error?: string;
}

export function summarizeInstances(result: RunResult): InstanceSummary[] {
  const rows: InstanceSummary[] = [];
  for (const c of result.components) {
    for (const i of c.instances) {
      rows.push({ name: i.name, namespace: i.namespace, component: c.name, action: 'applied', moduleVersion: i.module?.version, ...i.counts, ...(i.error ? { error: i.error.message } : {}) });
    }
  }
  for (const p of result.pruned) {
    rows.push({ name: p.name, namespace: p.namespace, component: p.component, action: 'pruned', ...p.counts, ...(p.error ? { error: p.error.message } : {}) });
  }
  return rows;
}
