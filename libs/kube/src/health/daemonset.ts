import type { HealthResult, KubeObject } from '../types';
import { current, inProgress } from './health-status';
import { intField } from './object-fields';

/** DaemonSet: scheduled, updated, available and ready pods against the desired count. */
export function daemonSetHealth(obj: KubeObject): HealthResult {
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
