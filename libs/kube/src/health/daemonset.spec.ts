import { daemonSetHealth } from './daemonset';

const ds = (status: object) => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'd' }, status });

describe('daemonSetHealth', () => {
  it('needs desiredNumberScheduled and every count to reach it', () => {
    expect(daemonSetHealth(ds({})).message).toBe('Missing .status.desiredNumberScheduled');
    expect(daemonSetHealth(ds({ desiredNumberScheduled: 2, currentNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 2, numberReady: 1 })).message).toBe('Ready: 1/2');
    expect(daemonSetHealth(ds({ desiredNumberScheduled: 2, currentNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 2, numberReady: 2 })).status).toBe('Current');
  });
});
