import { daemonSetHealth } from './daemonset';

const ds = (status: object) => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'd' }, status });

describe('daemonSetHealth', () => {
  it('needs desiredNumberScheduled and every count to reach it', () => {
    expect(daemonSetHealth(ds({})).message).toBe('Missing .status.desiredNumberScheduled');
    expect(daemonSetHealth(ds({ desiredNumberScheduled: 2, currentNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 2, numberReady: 1 })).message).toBe('Ready: 1/2');
    expect(daemonSetHealth(ds({ desiredNumberScheduled: 2, currentNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 2, numberReady: 2 })).status).toBe('Current');
  });

  it('is in progress until its controller has observed it, though the counts read 0 of 0', () => {
    // as a v1.36 API server returns a DaemonSet just created, before the controller's first status write
    const fresh = { ...ds({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }), metadata: { name: 'd', generation: 1 } };
    expect(daemonSetHealth(fresh)).toEqual({ status: 'InProgress', message: 'DaemonSet not yet observed by its controller' });
    const observed = { ...fresh, status: { ...fresh.status, observedGeneration: 1 } };
    expect(daemonSetHealth(observed)).toEqual({ status: 'Current', message: 'All replicas scheduled as expected. Replicas: 0' });
  });
});
