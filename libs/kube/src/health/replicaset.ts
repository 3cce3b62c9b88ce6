import type { HealthResult, KubeObject } from '../types';
import { current, inProgress } from './health-status';
import { condition, intField } from './object-fields';

/** ReplicaSet: labelled, available and ready replicas; ReplicaFailure keeps it in progress. */
export function replicaSetHealth(obj: KubeObject): HealthResult {
  const failure = condition(obj, 'ReplicaFailure');
  if (failure?.status === 'True') return inProgress(`Replica Failure condition. Message: ${failure.message ?? ''}`);
  const spec = intField(obj, 'spec.replicas', 1);
  const labelled = intField(obj, 'status.fullyLabeledReplicas', 0);
  const available = intField(obj, 'status.availableReplicas', 0);
  const ready = intField(obj, 'status.readyReplicas', 0);
  if (spec > labelled) return inProgress(`Labelled: ${labelled}/${spec}`);
  if (spec > available) return inProgress(`Available: ${available}/${spec}`);
  if (spec > ready) return inProgress(`Ready: ${ready}/${spec}`);
  return current(`ReplicaSet is available. Replicas: ${spec}`);
}
