import type { HealthResult, KubeObject } from '../types';
import { current, inProgress } from './health-status';
import { stringField } from './object-fields';

/** Service: a LoadBalancer needs a clusterIP; other types are Current. */
export function serviceHealth(obj: KubeObject): HealthResult {
  if (stringField(obj, 'spec.type') !== 'LoadBalancer') return current('Service is ready');
  return stringField(obj, 'spec.clusterIP') ? current('Service is ready') : inProgress('ClusterIP not set');
}
