import type { HealthResult, KubeObject } from '../types';
import { current, failed, inProgress } from './health-status';
import { conditions, intField } from './object-fields';

/** Deployment: replica counts, then the Progressing/Available conditions (kstatus rules). */
export function deploymentHealth(obj: KubeObject): HealthResult {
  let progressing = false;
  let available = false;
  for (const c of conditions(obj)) {
    if (c.type === 'Progressing') {
      if (c.reason === 'ProgressDeadlineExceeded') return failed('Progress deadline exceeded');
      if (c.status === 'True' && c.reason === 'NewReplicaSetAvailable') progressing = true;
    }
    if (c.type === 'Available' && c.status === 'True') available = true;
  }
  const spec = intField(obj, 'spec.replicas', 1);
  const replicas = intField(obj, 'status.replicas', 0);
  const updated = intField(obj, 'status.updatedReplicas', 0);
  const ready = intField(obj, 'status.readyReplicas', 0);
  const availableReplicas = intField(obj, 'status.availableReplicas', 0);
  if (spec > replicas) return inProgress(`Replicas: ${replicas}/${spec}`);
  if (spec > updated) return inProgress(`Updated: ${updated}/${spec}`);
  if (replicas > spec) return inProgress(`Pending termination: ${replicas - spec}`);
  if (updated > availableReplicas) return inProgress(`Available: ${availableReplicas}/${updated}`);
  if (spec > ready) return inProgress(`Ready: ${ready}/${spec}`);
  if (!progressing) return inProgress('ReplicaSet not Available');
  if (!available) return inProgress('Deployment not Available');
  return current(`Deployment is available. Replicas: ${replicas}`);
}
