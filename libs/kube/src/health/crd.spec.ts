import { crdHealth } from './crd';

const crd = (conditions: object[]) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x' }, status: { conditions } });

describe('crdHealth', () => {
  it('follows Established and NamesAccepted', () => {
    expect(crdHealth(crd([{ type: 'NamesAccepted', status: 'True' }, { type: 'Established', status: 'True' }])).status).toBe('Current');
    expect(crdHealth(crd([{ type: 'Established', status: 'False' }])).status).toBe('InProgress');
    expect(crdHealth(crd([{ type: 'NamesAccepted', status: 'False', message: 'plural taken' }]))).toEqual({ status: 'Failed', message: 'CRD names not accepted: plural taken' });
  });
});
