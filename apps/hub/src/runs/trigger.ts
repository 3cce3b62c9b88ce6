// Why a due Target runs, in priority order; stored on its Run row.

export type RunTrigger = 'Deletion' | 'Created' | 'Manual' | 'SpecChanged' | 'NewRevision' | 'Retry' | 'Interval';

export interface TriggerFacts {
  deleting: boolean;
  generation: number;
  observedGeneration: number | null;
  lastAppliedRevision: string | null;
  attempt: number;
  reconcileRequestedAt: Date | null;
}

export function runTrigger(t: TriggerFacts, revision: string): RunTrigger {
  if (t.deleting) return 'Deletion';
  if (t.observedGeneration === null) return 'Created';
  if (t.reconcileRequestedAt !== null) return 'Manual';
  if (t.generation > t.observedGeneration) return 'SpecChanged';
  if (t.attempt > 0) return 'Retry';
  if (t.lastAppliedRevision !== revision) return 'NewRevision';
  return 'Interval';
}
