import { servedKinds } from './discovery-wait';

describe('servedKinds', () => {
  it('lists the kind of every served version of a CRD, not the unserved ones', () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.test' },
      spec: {
        group: 'example.test',
        names: { kind: 'Widget', plural: 'widgets' },
        versions: [
          { name: 'v1', served: true },
          { name: 'v1beta1', served: false },
          { name: 'v2', served: true },
        ],
      },
    };
    expect(servedKinds(crd)).toEqual([
      { apiVersion: 'example.test/v1', kind: 'Widget' },
      { apiVersion: 'example.test/v2', kind: 'Widget' },
    ]);
  });

  it('gives nothing for a CRD without group or kind (the API server rejects those anyway)', () => {
    expect(servedKinds({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x' }, spec: {} })).toEqual([]);
  });
});
