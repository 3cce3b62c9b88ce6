import { RuntimeRefError } from './errors';
import { parseRuntimeRef } from './runtime-reader';

describe('runtime refs', () => {
  it('reads namespaced and cluster-scoped forms', () => {
    expect(parseRuntimeRef('k8s:v1:Secret:infra:tls')).toEqual({ apiVersion: 'v1', kind: 'Secret', namespace: 'infra', name: 'tls' });
    expect(parseRuntimeRef('k8s:v1:Namespace:kube-system')).toEqual({ apiVersion: 'v1', kind: 'Namespace', name: 'kube-system' });
    expect(parseRuntimeRef('k8s:a/v1:K:x:y:z')).toEqual({ apiVersion: 'a/v1', kind: 'K', name: 'x' });
  });

  it('rejects other shapes', () => {
    expect(() => parseRuntimeRef('k8s:v1:Secret')).toThrow(RuntimeRefError);
    expect(() => parseRuntimeRef('env:v1:Secret:x')).toThrow(/must start with "k8s:"/);
  });
});
