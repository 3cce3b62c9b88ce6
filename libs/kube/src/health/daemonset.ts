import type { HealthResult, KubeObject } from '../types';
import { current, inProgress } from './health-status';
import { field, intField } from './object-fields';

/** DaemonSet: scheduled, updated, available and ready pods against the desired count. */
export function daemonSetHealth(obj: KubeObject): HealthResult {
  // A new DaemonSet reads back with every count 0 before its controller has
  // looked at it (the fields are not optional): 0 desired would look done.
  if (typeof obj.metadata.generation === 'number' && typeof field(obj, 'status.observedGeneration') !== 'number') {
    return inProgress('DaemonSet not yet observed by its controller');
  }
  const desired = intField(obj, 'status.desiredNumberScheduled', -1);
  if (desired === -1) return inProgress('Missing .status.desiredNumberScheduled');
  const scheduled = intField(obj, 'status.currentNumberScheduled', 0);
  const updated = intField(obj, 'status.updatedNumberScheduled', 0);
  const available = intField(obj, 'status.numberAvailable', 0);
  const ready = intField(obj, 'status.numberReady', 0);
  if (desired > scheduled) return inProgress(`Current: ${scheduled}/${desired}`);
  if (desired > updated) return inProgress(`Updated: ${updated}/${desired}`);
  if (desired > available) return inProgress(`Available: ${available}/${desired}`);
  if (desired > ready) return inProgress(`Ready: ${ready}/${desired}`);
  return current(`All replicas scheduled as expected. Replicas: ${desired}`);
}
