import type { HealthResult, KubeObject } from '../types';
import { current, failed, inProgress } from './health-status';
import { condition, field } from './object-fields';

/** Timoni's Job rule: suspended or Complete → Current, Failed → Failed, else in progress. */
export function jobHealth(obj: KubeObject): HealthResult {
  if (field(obj, 'spec.suspend') === true) return current('Job is suspended');
  if (condition(obj, 'Complete')?.status === 'True') return current('Job completed');
  const f = condition(obj, 'Failed');
  if (f?.status === 'True') return failed(`Job failed: ${f.message || f.reason || ''}`.trim());
  if (!field(obj, 'status.startTime')) return inProgress('Job not started');
  return inProgress('Job in progress');
}
