import { statefulSetHealth } from './statefulset';

const s = (spec: object, status: object) => ({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's' }, spec, status });

describe('statefulSetHealth', () => {
  it('is Current for OnDelete and for a finished rollout', () => {
    expect(statefulSetHealth(s({ updateStrategy: { type: 'OnDelete' } }, {})).status).toBe('Current');
    expect(statefulSetHealth(s({ replicas: 2 }, { replicas: 2, readyReplicas: 2, currentReplicas: 2, currentRevision: 'r1', updateRevision: 'r1' })).status).toBe('Current');
  });

  it('waits for ready replicas, partitions and revisions', () => {
    expect(statefulSetHealth(s({ replicas: 2 }, { replicas: 2, readyReplicas: 1 })).message).toBe('Ready: 1/2');
    expect(statefulSetHealth(s({ replicas: 3, updateStrategy: { rollingUpdate: { partition: 1 } } }, { replicas: 3, readyReplicas: 3, updatedReplicas: 1 })).message).toBe('updated: 1/2');
    expect(statefulSetHealth(s({ replicas: 1 }, { replicas: 1, readyReplicas: 1, currentReplicas: 1, currentRevision: 'a', updateRevision: 'b' })).status).toBe('InProgress');
  });
});
