import { configMap, createNamespace, testCluster, uniqueName } from '../testdata/cluster';
import { NotFoundError } from './errors';

const { connection, client } = testCluster();
afterAll(() => connection.close());

describe('ObjectClient (real API server)', () => {
  it('gets, lists with a label selector, patches and deletes objects of any kind', async () => {
    const ns = await createNamespace(client, 'client');
    const opts = { dryRun: false, force: true, fieldManager: 'flotilla-test' };
    await client.apply(configMap(ns, 'a', { k: '1' }, { labels: { pick: 'yes' } }), opts);
    await client.apply(configMap(ns, 'b', { k: '1' }), opts);

    const listed = await client.list('v1', 'ConfigMap', { namespace: ns, labelSelector: 'pick=yes' });
    expect(listed.map((o) => [o.apiVersion, o.kind, o.metadata.name])).toEqual([['v1', 'ConfigMap', 'a']]);

    const merged = await client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' }, { data: { k: '2' } }, 'merge');
    expect(merged.data).toEqual({ k: '2' });
    const patched = await client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' }, [{ op: 'add', path: '/data/j', value: '3' }], 'json');
    expect(patched.data).toEqual({ k: '2', j: '3' });

    const dry = await client.apply(configMap(ns, 'c', { k: '1' }), { ...opts, dryRun: true });
    expect(dry.metadata.name).toBe('c');
    expect(await client.getOptional({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'c' })).toBeUndefined();

    expect(await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' })).toBe(true);
    expect(await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' })).toBe(false);
    const err = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toMatch(new RegExp(`^ConfigMap/${ns}/a: GET /api/v1/namespaces/${ns}/configmaps/a: 404 NotFound`));
  });

  it('addresses cluster-scoped objects without a namespace segment', async () => {
    const name = uniqueName('client-ns');
    expect(await client.objectPath({ apiVersion: 'v1', kind: 'Namespace', namespace: 'ignored', name })).toBe(`/api/v1/namespaces/${name}`);
    expect(await client.objectPath({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'a:b' })).toBe('/apis/rbac.authorization.k8s.io/v1/clusterroles/a%3Ab');
  });
});
