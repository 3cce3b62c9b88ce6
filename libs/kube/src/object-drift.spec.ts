import { hasDrifted, semanticEqual } from './object-drift';
import type { KubeObject } from './types';

const live: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'n', resourceVersion: '10', labels: { a: '1' }, managedFields: [{ manager: 'x' }] },
  data: { k: 'v' },
};

describe('drift', () => {
  it('is false when only server metadata differs', () => {
    const dry = structuredClone(live);
    dry.metadata.managedFields = [{ manager: 'timoni' }];
    dry.metadata.resourceVersion = '10';
    expect(hasDrifted(live, dry)).toBe(false);
  });

  it('is true for objects not created yet', () => {
    const dry = structuredClone(live);
    delete dry.metadata.resourceVersion;
    expect(hasDrifted(live, dry)).toBe(true);
  });

  it('detects label, annotation and body changes', () => {
    expect(hasDrifted(live, { ...live, metadata: { ...live.metadata, labels: { a: '2' } } })).toBe(true);
    expect(hasDrifted(live, { ...live, metadata: { ...live.metadata, annotations: { x: 'y' } } })).toBe(true);
    expect(hasDrifted(live, { ...live, data: { k: 'w' } })).toBe(true);
  });

  it('ignores status and treats empty and missing containers alike', () => {
    expect(hasDrifted(live, { ...live, status: { phase: 'x' } })).toBe(false);
    expect(semanticEqual({ a: {} }, { a: undefined })).toBe(true);
    expect(semanticEqual([], undefined)).toBe(true);
    expect(semanticEqual({ a: [1] }, { a: [1, 2] })).toBe(false);
    expect(semanticEqual('', undefined)).toBe(false);
  });
});
