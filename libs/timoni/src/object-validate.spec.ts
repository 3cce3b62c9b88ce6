import { collectImages, isQualifiedName, stampInstanceLabels, stepObjects, validateObject } from './object-validate';

describe('object validation (§2.2 step 5)', () => {
  const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra } });

  it('skips nulls, expands lists, drops Kustomizations', () => {
    const { objects, issues } = stepObjects('app', [
      null,
      { apiVersion: 'v1', kind: 'List', items: [cm('a'), cm('b')] },
      { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', metadata: { name: 'k' } },
      cm('c'),
    ]);
    expect(issues).toEqual([]);
    expect(objects.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
  });

  it('expands any object whose top-level items is a list, whatever its kind, one level deep', () => {
    const nested = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { name: 'nested' }, items: [cm('inner')] };
    const { objects, issues } = stepObjects('app', [
      { apiVersion: 'flotilla.test/v1', kind: 'Bag', items: [cm('a'), nested] },
      { apiVersion: 'v1', kind: 'List', items: [] },
      { ...cm('data-items'), items: 'not a list' },
    ]);
    expect(issues).toEqual([]);
    // the nested list is an item like any other: kept whole, not expanded again
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['ConfigMap/a', 'ConfigMapList/nested', 'ConfigMap/data-items']);
  });

  it('rejects a list without a kind and items that are not objects, as Timoni does', () => {
    const { objects, issues } = stepObjects('app', [
      { items: [cm('a')] },
      { apiVersion: 'v1', kind: 'List', items: [cm('b'), null] },
    ]);
    expect(objects).toEqual([]);
    expect(issues.map((i) => i.message)).toEqual(['timoni.apply.app: item 0: kind is required', 'timoni.apply.app: item 1.items[1]: not an object']);
  });

  it('requires apiVersion, kind and metadata.name and reports every problem', () => {
    const { issues } = stepObjects('app', [{ kind: 'X', metadata: {} }, 'str', cm('Upper'), cm('ok', { namespace: 'Bad.NS' })]);
    expect(issues.map((i) => i.message)).toEqual([
      'timoni.apply.app: item 0: apiVersion is required',
      'timoni.apply.app: item 0: metadata.name is required',
      'item 1: not an object',
      'timoni.apply.app: ConfigMap/Upper: metadata.name "Upper" must be a lowercase RFC 1123 subdomain',
      'timoni.apply.app: ConfigMap/ok: metadata.namespace "Bad.NS" must be a lowercase RFC 1123 label',
    ]);
    expect(stepObjects('x', {}).issues[0].message).toBe('timoni.apply.x must be a list');
  });

  it('uses the path segment rule for RBAC names', () => {
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'system:Controller' } };
    expect(validateObject(role, 'r')).toEqual([]);
    expect(validateObject({ ...role, metadata: { name: 'a/b' } }, 'r')).toHaveLength(1);
  });

  it('checks label and annotation keys and values', () => {
    expect(isQualifiedName('app.kubernetes.io/name')).toBe(true);
    expect(isQualifiedName('bad/key/x')).toBe(false);
    expect(validateObject(cm('a', { labels: { ok: 'v', 'x/': 'v', k: 'bad value' } }), 'a')).toHaveLength(2);
    expect(validateObject(cm('a', { annotations: { big: 'x'.repeat(300 * 1024) } }), 'a')[0]).toContain('256 KiB');
  });

  it('collects image references and stamps instance labels', () => {
    expect(collectImages({ a: { repository: 'r', tag: 't', digest: '', reference: 'r:t' }, l: [{ repository: 'q', tag: '', digest: 'd', reference: 'q@d' }], n: { repository: 'no' } })).toEqual([
      'q@d',
      'r:t',
    ]);
    const o = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { 'instance.timoni.sh/name': 'old', x: 'y' } } };
    stampInstanceLabels(o, 'web', 'apps');
    expect(o.metadata.labels).toEqual({ 'instance.timoni.sh/name': 'web', x: 'y', 'instance.timoni.sh/namespace': 'apps' });
  });
});
