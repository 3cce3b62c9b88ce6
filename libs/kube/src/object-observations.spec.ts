import { ObservedObjects } from './object-observations';
import type { KubeObject } from './types';

const cm = (name: string, data: string, namespace = 'apps'): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { data } });
const address = (o: KubeObject) => ({ apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name });

describe('ObservedObjects', () => {
  it('serves each answer once, the latest for its address', () => {
    const seen = new ObservedObjects();
    seen.record(address(cm('a', '1')), cm('a', '1'));
    seen.record(address(cm('a', '2')), cm('a', '2'));
    expect(seen.size).toBe(1);
    expect(seen.take(address(cm('a', '')))).toEqual(cm('a', '2'));
    expect(seen.take(address(cm('a', '')))).toBeUndefined();
    expect(seen.size).toBe(0);
  });

  it('tells apart objects that differ only in namespace, kind or version', () => {
    const seen = new ObservedObjects();
    seen.record(address(cm('a', 'apps')), cm('a', 'apps'));
    expect(seen.take(address(cm('a', '', 'other')))).toBeUndefined();
    expect(seen.take({ apiVersion: 'v1', kind: 'Secret', namespace: 'apps', name: 'a' })).toBeUndefined();
    expect(seen.take({ apiVersion: 'v2', kind: 'ConfigMap', namespace: 'apps', name: 'a' })).toBeUndefined();
    expect(seen.take(address(cm('a', '')))).toEqual(cm('a', 'apps'));
  });
});
