import type { HealthResult, KubeObject } from '../types';
import { failed, inProgress } from './health-status';
import { conditions, field } from './object-fields';

/**
 * kstatus checks every kind shares: deletion → Terminating, a stale observedGeneration →
 * InProgress, `Reconciling=True` → InProgress, `Stalled=True` → Failed. Undefined when none apply.
 */
export function genericHealth(obj: KubeObject): HealthResult | undefined {
  if (obj.metadata.deletionTimestamp) return { status: 'Terminating', message: 'Resource scheduled for deletion' };
  const observed = field(obj, 'status.observedGeneration');
  const generation = obj.metadata.generation;
  if (typeof observed === 'number' && typeof generation === 'number' && observed !== generation) {
    return inProgress(`${obj.kind} generation is ${generation}, but latest observed generation is ${observed}`);
  }
  for (const c of conditions(obj)) {
    if (c.type === 'Reconciling' && c.status === 'True') return inProgress(c.message || c.reason || 'Reconciling');
    if (c.type === 'Stalled' && c.status === 'True') return failed(c.message || c.reason || 'Stalled');
  }
  return undefined;
}

/** Kinds without a specific rule: a `Ready` condition decides; no known condition → Current. */
export function readyConditionHealth(obj: KubeObject): HealthResult {
  const ready = conditions(obj).find((c) => c.type === 'Ready');
  if (!ready) return { status: 'Current', message: 'Resource is current' };
  if (ready.status === 'True') return { status: 'Current', message: ready.message || 'Resource is Ready' };
  return inProgress(ready.message || ready.reason || 'Ready condition is not True');
}
