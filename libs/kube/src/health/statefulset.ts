import type { HealthResult, KubeObject } from '../types';
import { current, inProgress } from './health-status';
import { intField, stringField } from './object-fields';

/** StatefulSet: ready/current/updated replicas and revision (kstatus rules; OnDelete is Current). */
export function statefulSetHealth(obj: KubeObject): HealthResult {
  if (stringField(obj, 'spec.updateStrategy.type') === 'OnDelete') return current('StatefulSet is using the OnDelete strategy');
  const spec = intField(obj, 'spec.replicas', 1);
  const ready = intField(obj, 'status.readyReplicas', 0);
  const currentReplicas = intField(obj, 'status.currentReplicas', 0);
  const updated = intField(obj, 'status.updatedReplicas', 0);
  const replicas = intField(obj, 'status.replicas', 0);
  const partition = intField(obj, 'spec.updateStrategy.rollingUpdate.partition', -1);
  if (spec > replicas) return inProgress(`Replicas: ${replicas}/${spec}`);
  if (spec > ready) return inProgress(`Ready: ${ready}/${spec}`);
  if (replicas > spec) return inProgress(`Pending termination: ${replicas - spec}`);
  if (partition > -1) {
    if (updated < spec - partition) return inProgress(`updated: ${updated}/${spec - partition}`);
    return current(`Partition rollout complete. updated: ${updated}`);
  }
  if (spec > currentReplicas) return inProgress(`current: ${currentReplicas}/${spec}`);
  const currentRevision = stringField(obj, 'status.currentRevision');
  const updateRevision = stringField(obj, 'status.updateRevision');
  if (currentRevision !== updateRevision) return inProgress(`Waiting for updated revision ${updateRevision ?? ''} to match current ${currentRevision ?? ''}`);
  return current(`All replicas scheduled as expected. Replicas: ${replicas}`);
}
