import { deploymentHealth } from './deployment';

const d = (spec: object, status: object) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec, status });
const ok = [{ type: 'Available', status: 'True' }, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }];

describe('deploymentHealth', () => {
  it.each([
    [{ replicas: 3 }, { replicas: 2 }, 'Replicas: 2/3'],
    [{ replicas: 2 }, { replicas: 2, updatedReplicas: 1 }, 'Updated: 1/2'],
    [{ replicas: 1 }, { replicas: 2, updatedReplicas: 1 }, 'Pending termination: 1'],
    [{ replicas: 2 }, { replicas: 2, updatedReplicas: 2, availableReplicas: 1 }, 'Available: 1/2'],
    [{ replicas: 2 }, { replicas: 2, updatedReplicas: 2, availableReplicas: 2, readyReplicas: 1 }, 'Ready: 1/2'],
    [{ replicas: 1 }, { replicas: 1, updatedReplicas: 1, availableReplicas: 1, readyReplicas: 1 }, 'ReplicaSet not Available'],
  ])('spec %j status %j → InProgress %s', (spec, status, message) => {
    expect(deploymentHealth(d(spec, status))).toEqual({ status: 'InProgress', message });
  });

  it('defaults spec.replicas to 1 and is Current when all counts and conditions agree', () => {
    expect(deploymentHealth(d({}, { replicas: 1, updatedReplicas: 1, availableReplicas: 1, readyReplicas: 1, conditions: ok })).status).toBe('Current');
  });

  it('fails on ProgressDeadlineExceeded', () => {
    expect(deploymentHealth(d({}, { conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }] })).status).toBe('Failed');
  });
});
