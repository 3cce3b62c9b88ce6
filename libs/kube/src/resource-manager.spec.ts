import { harnessEnv } from '../../../test/harness/env';
import { configMap, createNamespace, deployment, testCluster } from '../testdata/cluster';
import { serviceAccountImpersonation } from './connection';
import { ForbiddenError, StagedApplyError } from './errors';
import { objectRef } from './object-id';

const { connection, manager, client } = testCluster();
afterAll(() => connection.close());

describe('ResourceManager (real API server)', () => {
  it('reports live status of inventory entries, missing ones as NotFound', async () => {
    const ns = await createNamespace(client, 'rm-status');
    const set = await manager.prepare([configMap(ns, 'c', {}), deployment(ns, 'web')], { name: 'app', namespace: ns });
    await manager.applyAllStaged(set);
    const refs = [...set.map(objectRef), { group: '', version: 'v1', kind: 'Secret', namespace: ns, name: 'gone' }];
    expect((await manager.status(refs)).map((h) => [h.subject, h.status])).toEqual([
      [`ConfigMap/${ns}/c`, 'Current'],
      [`Deployment/${ns}/web`, 'InProgress'],
      [`Secret/${ns}/gone`, 'NotFound'],
    ]);
  });

  it('acts as the impersonated identity for every operation', async () => {
    const ns = await createNamespace(client, 'rm-imp');
    const asNobody = manager.impersonate(serviceAccountImpersonation(ns, 'nobody'));
    const set = await manager.prepare([configMap(ns, 'c', {})], { name: 'app', namespace: ns });
    const err = await asNobody.applyAllStaged(set).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StagedApplyError);
    expect(((err as Error).cause as Error).cause).toBeInstanceOf(ForbiddenError);
    expect((err as Error).message).toContain(`system:serviceaccount:${ns}:nobody`);
  });

  it('reads the server version', async () => {
    await expect(manager.serverVersion()).resolves.toBe(harnessEnv().kube.version);
  });
});
