import { harnessEnv } from '../../../test/harness/env';
import { serviceAccountSubject, waitUntilAllowed } from '../../../test/harness/kube-rbac';
import { createNamespace, testCluster, uniqueName } from '../testdata/cluster';
import { serviceAccountImpersonation } from './connection';
import { InventoryListError } from './errors';
import type { KubeObject } from './types';

const { connection, manager, client } = testCluster();
afterAll(() => connection.close());

describe('ResourceManager.listInventories (real API server)', () => {
  const applyOpts = { dryRun: false, force: true, fieldManager: 'flotilla-test' };
  const inventory = (namespace: string, instance: string, tag: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `timoni.${instance}`, namespace, labels: { 'app.kubernetes.io/name': instance, 'example.com/tag': tag } },
    type: 'timoni.sh/instance',
    data: {},
  });

  it('lists cluster-wide, or namespace by namespace when the identity may not', async () => {
    const tag = uniqueName('tag');
    const readable = await createNamespace(client, 'inv-read');
    const hidden = await createNamespace(client, 'inv-hidden');
    await client.apply(inventory(readable, 'one', tag), applyOpts);
    await client.apply(inventory(hidden, 'two', tag), applyOpts);
    const selector = `example.com/tag=${tag}`;

    const all = await manager.listInventories(selector);
    expect(all.map((r) => [r.namespace, r.name]).sort()).toEqual([[hidden, 'two'], [readable, 'one']].sort());
    expect(all.find((r) => r.name === 'one')?.labels).toEqual({ 'app.kubernetes.io/name': 'one', 'example.com/tag': tag });

    // a service account that may read Secrets in one namespace only
    const sa = uniqueName('sa');
    await client.apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'secrets', namespace: readable }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }] }, applyOpts);
    await client.apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'secrets', namespace: readable },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secrets' },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: readable }],
    }, applyOpts);
    await waitUntilAllowed(harnessEnv().kube, { ...serviceAccountSubject(readable, sa), namespace: readable, verb: 'list', resource: 'secrets' });
    const asSa = manager.impersonate(serviceAccountImpersonation(readable, sa));
    const some = await asSa.listInventories(selector, [hidden, readable, readable]);
    expect(some.map((r) => [r.namespace, r.name])).toEqual([[readable, 'one']]);

    // failures other than access are errors, naming the namespace of the fallback
    const bad = await asSa.listInventories('a=b=c', [readable]).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(InventoryListError);
    expect(bad).toMatchObject({ namespace: readable, message: expect.stringContaining(`list inventory Secrets in namespace ${readable}: `) });
  });

  it('fails on a cluster-wide listing refused for another reason than access', async () => {
    const err = await manager.listInventories('a=b=c').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InventoryListError);
    expect(err).toMatchObject({ namespace: undefined, cause: { statusCode: 400 } });
  });
});
