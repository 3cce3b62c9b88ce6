import { pvcHealth } from './pvc';

describe('pvcHealth', () => {
  it('is Current once Bound', () => {
    const pvc = (phase: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, status: { phase } });
    expect(pvcHealth(pvc('Bound')).status).toBe('Current');
    expect(pvcHealth(pvc('Pending'))).toEqual({ status: 'InProgress', message: 'PVC is not Bound. phase: Pending' });
  });
});
