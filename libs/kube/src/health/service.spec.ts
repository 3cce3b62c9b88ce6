import { serviceHealth } from './service';

describe('serviceHealth', () => {
  it('only a LoadBalancer without clusterIP is in progress', () => {
    const svc = (spec: object) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec });
    expect(serviceHealth(svc({ type: 'ClusterIP' })).status).toBe('Current');
    expect(serviceHealth(svc({ type: 'LoadBalancer' })).status).toBe('InProgress');
    expect(serviceHealth(svc({ type: 'LoadBalancer', clusterIP: '10.96.0.10' })).status).toBe('Current');
  });
});
