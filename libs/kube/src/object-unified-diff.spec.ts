import { readableYaml, unifiedObjectDiff } from './object-unified-diff';
import type { KubeObject } from './types';

const deployment = (image: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', uid: 'u-1', resourceVersion: '7', managedFields: [{ manager: 'x' }], ...extra },
  spec: { replicas: 2, template: { spec: { containers: [{ name: 'web', image }] } } },
  status: { readyReplicas: 2 },
});

describe('unified object diff', () => {
  it('shows the changed line with context and leaves server fields out', () => {
    const text = unifiedObjectDiff('Deployment/shop/web', deployment('web:1'), deployment('web:2'));
    expect(text).toMatch(/^--- Deployment\/shop\/web \(live\)\n\+\+\+ Deployment\/shop\/web \(after\)\n@@ /);
    expect(text).toContain('\n-        - image: web:1\n+        - image: web:2\n');
    expect(text).not.toMatch(/managedFields|resourceVersion|readyReplicas|u-1/);
  });

  it('is empty when only server-owned fields differ', () => {
    expect(unifiedObjectDiff('d', deployment('a'), deployment('a', { resourceVersion: '8', generation: 3 }))).toBe('');
  });

  it('masks Secret values, showing which keys change', () => {
    const secret = (data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data });
    const text = unifiedObjectDiff('Secret/s', secret({ same: 'c2FtZQ==', pw: 'b2xk' }), secret({ same: 'c2FtZQ==', pw: 'bmV3' }));
    expect(text).toContain('-  pw: "*** (before)"\n+  pw: "*** (after)"');
    expect(text).not.toMatch(/c2FtZQ==|b2xk|bmV3/);
  });

  it('shows a new object as all added lines', () => {
    const text = unifiedObjectDiff('ConfigMap/c', undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } });
    expect(text.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++'))).toEqual(['+apiVersion: v1', '+data:', '+  a: b', '+kind: ConfigMap', '+metadata:', '+  name: c']);
    expect(readableYaml(undefined)).toBe('');
  });
});
