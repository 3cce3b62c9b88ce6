import type { HealthResult, KubeObject } from '../types';
import { current, inProgress } from './health-status';
import { stringField } from './object-fields';

/** PersistentVolumeClaim: Current once Bound. */
export function pvcHealth(obj: KubeObject): HealthResult {
  const phase = stringField(obj, 'status.phase');
  return phase === 'Bound' ? current('PVC is Bound') : inProgress(`PVC is not Bound. phase: ${phase ?? ''}`);
}
