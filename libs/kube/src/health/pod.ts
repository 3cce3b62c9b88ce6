import type { HealthResult, KubeObject } from '../types';
import { current, failed, inProgress } from './health-status';
import { condition, stringField } from './object-fields';

/** Pod: Succeeded or Running+Ready → Current, Failed phase → Failed, otherwise in progress. */
export function podHealth(obj: KubeObject): HealthResult {
  const phase = stringField(obj, 'status.phase') ?? '';
  if (phase === 'Succeeded') return current('Pod has completed successfully');
  if (phase === 'Failed') return failed('Pod has completed, but not successfully');
  if (phase === 'Running') {
    if (condition(obj, 'Ready')?.status === 'True') return current('Pod is Ready');
    return inProgress('Pod is running but is not Ready');
  }
  return inProgress(phase ? `Pod phase is ${phase}` : 'Pod has not been scheduled');
}
