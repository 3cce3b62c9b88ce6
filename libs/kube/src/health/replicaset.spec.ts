import { replicaSetHealth } from './replicaset';

const rs = (status: object) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'r' }, spec: { replicas: 2 }, status });

describe('replicaSetHealth', () => {
  it('checks labelled, available and ready replicas and ReplicaFailure', () => {
    expect(replicaSetHealth(rs({ fullyLabeledReplicas: 1 })).message).toBe('Labelled: 1/2');
    expect(replicaSetHealth(rs({ conditions: [{ type: 'ReplicaFailure', status: 'True', message: 'quota' }] })).message).toBe('Replica Failure condition. Message: quota');
    expect(replicaSetHealth(rs({ fullyLabeledReplicas: 2, availableReplicas: 2, readyReplicas: 2 })).status).toBe('Current');
  });
});
