import type { KubeObject } from '../types';
import { defaultHealthRegistry, type HealthCheckEvaluator } from './health-registry';
import { worstStatus } from './health-status';

const registry = defaultHealthRegistry();
const o = (apiVersion: string, kind: string, rest: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: 'x', namespace: 'n', generation: 1 },
  ...rest,
});

describe('health registry', () => {
  it('Deployment: in progress without replicas, Current when status is ready', () => {
    expect(registry.compute(o('apps/v1', 'Deployment', { spec: { replicas: 2 } })).status).toBe('InProgress');
    const ready = o('apps/v1', 'Deployment', {
      spec: { replicas: 2 },
      status: {
        observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2,
        conditions: [
          { type: 'Available', status: 'True' },
          { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
        ],
      },
    });
    expect(registry.compute(ready)).toEqual({ status: 'Current', message: 'Deployment is available. Replicas: 2' });
    const stale = structuredClone(ready);
    stale.metadata.generation = 2;
    expect(registry.compute(stale).status).toBe('InProgress');
    const deadline = structuredClone(ready);
    (deadline.status as { conditions: unknown[] }).conditions = [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }];
    expect(registry.compute(deadline).status).toBe('Failed');
  });

  it('Job follows Timoni: suspended/Complete Current, Failed Failed, else InProgress', () => {
    expect(registry.compute(o('batch/v1', 'Job', { spec: { suspend: true } })).status).toBe('Current');
    expect(registry.compute(o('batch/v1', 'Job', { status: { conditions: [{ type: 'Complete', status: 'True' }] } })).status).toBe('Current');
    expect(registry.compute(o('batch/v1', 'Job', { status: { conditions: [{ type: 'Failed', status: 'True', message: 'BackoffLimitExceeded' }] } })).status).toBe('Failed');
    expect(registry.compute(o('batch/v1', 'Job', { status: { startTime: 't' } })).status).toBe('InProgress');
  });

  it('CRD Established, names conflict Failed', () => {
    expect(registry.compute(o('apiextensions.k8s.io/v1', 'CustomResourceDefinition', { status: { conditions: [{ type: 'Established', status: 'True' }] } })).status).toBe('Current');
    expect(registry.compute(o('apiextensions.k8s.io/v1', 'CustomResourceDefinition', { status: { conditions: [{ type: 'NamesAccepted', status: 'False' }] } })).status).toBe('Failed');
    expect(registry.compute(o('apiextensions.k8s.io/v1', 'CustomResourceDefinition')).status).toBe('InProgress');
  });

  it('built-in kinds', () => {
    expect(registry.compute(o('v1', 'Secret')).status).toBe('Current');
    expect(registry.compute(o('v1', 'PersistentVolumeClaim', { status: { phase: 'Pending' } })).status).toBe('InProgress');
    expect(registry.compute(o('v1', 'Pod', { status: { phase: 'Failed' } })).status).toBe('Failed');
    expect(registry.compute(o('v1', 'Service', { spec: { type: 'LoadBalancer' } })).status).toBe('InProgress');
    expect(registry.compute(o('apps/v1', 'StatefulSet', { spec: { replicas: 1 }, status: { replicas: 1, readyReplicas: 1, currentReplicas: 1, currentRevision: 'a', updateRevision: 'a' } })).status).toBe('Current');
    expect(registry.compute(o('apps/v1', 'DaemonSet', { status: {} })).status).toBe('InProgress');
  });

  it('unknown kinds: Ready condition decides, none → Current; Stalled → Failed; deletion → Terminating', () => {
    expect(registry.compute(o('example.com/v1', 'Widget')).status).toBe('Current');
    expect(registry.compute(o('example.com/v1', 'Widget', { status: { conditions: [{ type: 'Ready', status: 'False', message: 'waiting' }] } }))).toEqual({ status: 'InProgress', message: 'waiting' });
    expect(registry.compute(o('example.com/v1', 'Widget', { status: { conditions: [{ type: 'Stalled', status: 'True' }] } })).status).toBe('Failed');
    const del = o('example.com/v1', 'Widget');
    del.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(registry.compute(del).status).toBe('Terminating');
  });

  it('override hook replaces a kind rule', () => {
    const r = defaultHealthRegistry().register('example.com', 'Widget', () => ({ status: 'Failed', message: 'custom' }));
    expect(r.compute(o('example.com/v1', 'Widget')).message).toBe('custom');
  });

  it('module checks take precedence over the Job rule', async () => {
    const evaluator: HealthCheckEvaluator = {
      evaluate: async (obj) => (obj.kind === 'Job' ? { status: 'Current', message: 'cue says ok' } : undefined),
    };
    expect(await registry.computeWithChecks(o('batch/v1', 'Job'), evaluator)).toEqual({ status: 'Current', message: 'cue says ok' });
    expect((await registry.computeWithChecks(o('apps/v1', 'Deployment'), evaluator)).status).toBe('InProgress');
  });

  it('ranks statuses', () => {
    expect(worstStatus(['Current', 'InProgress', 'Current'])).toBe('InProgress');
    expect(worstStatus(['InProgress', 'Failed'])).toBe('Failed');
    expect(worstStatus([])).toBe('Current');
  });
});
