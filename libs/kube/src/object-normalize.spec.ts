import { crdScopes, stampInstanceLabels } from './object-normalize';
import type { KubeObject } from './types';

describe('object normalization', () => {
  it('stamps both instance labels over existing ones without mutating the input', () => {
    const input: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: '1', 'instance.timoni.sh/name': 'old' } } };
    const [out] = stampInstanceLabels([input], { name: 'app', namespace: 'apps' });
    expect(out.metadata.labels).toEqual({ a: '1', 'instance.timoni.sh/name': 'app', 'instance.timoni.sh/namespace': 'apps' });
    expect(input.metadata.labels?.['instance.timoni.sh/name']).toBe('old');
  });

  it('knows the scope of kinds declared by CRDs in the same set', () => {
    const crd = (kind: string, scope: string): KubeObject => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${kind.toLowerCase()}s.example.com` },
      spec: { group: 'example.com', scope, names: { kind } },
    });
    expect(crdScopes([crd('Widget', 'Namespaced'), crd('Gadget', 'Cluster')])).toEqual(
      new Map([['example.com/Widget', true], ['example.com/Gadget', false]]),
    );
  });
});
