import { createNamespace, testCluster, uniqueName } from '../testdata/cluster';
import { isNotFound, UnknownKindError } from './errors';
import { parseRuntimeRef } from './runtime-reader';

const { connection, manager, client } = testCluster();
afterAll(() => connection.close());

describe('discovery and runtime reader (real API server)', () => {
  it('resolves kinds to resources with their scope and caches the answer', async () => {
    let requests = 0;
    expect(await client.resourceOf('apps/v1', 'Deployment')).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true });
    expect((await client.resourceOf('v1', 'Namespace')).namespaced).toBe(false);
    // apps/v1 is cached now: another kind of it needs no request
    const spy = jest.spyOn(connection, 'request').mockImplementation(async () => { requests++; throw new Error('no request expected'); });
    try {
      expect((await client.resourceOf('apps/v1', 'StatefulSet')).resource).toBe('statefulsets');
    } finally {
      spy.mockRestore();
    }
    expect(requests).toBe(0);
    await expect(client.resourceOf('nope.flotilla.test/v1', 'Thing')).rejects.toBeInstanceOf(UnknownKindError);
    await expect(client.resourceOf('apps/v1', 'NoSuchKind')).rejects.toThrow(/no resource for kind NoSuchKind in apps\/v1/);
  });

  it('reads objects for k8s: refs and tells NotFound apart', async () => {
    const ns = await createNamespace(client, 'reader');
    await client.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls', namespace: ns }, data: { 'ca.crt': Buffer.from('pem').toString('base64') } }, { dryRun: false, force: true, fieldManager: 'flotilla-test' });
    const reader = manager.reader();
    const secret = await reader.get(parseRuntimeRef(`k8s:v1:Secret:${ns}:tls`));
    expect((secret.data as Record<string, string>)['ca.crt']).toBe(Buffer.from('pem').toString('base64'));
    const nsObj = await reader.get(parseRuntimeRef(`k8s:v1:Namespace:${ns}`));
    expect(nsObj.metadata.name).toBe(ns);
    const missing = await reader.get(parseRuntimeRef(`k8s:v1:ConfigMap:${ns}:${uniqueName('x')}`)).catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
    const unknown = await reader.get(parseRuntimeRef('k8s:nope.flotilla.test/v1:Thing:x')).catch((e: unknown) => e);
    expect(isNotFound(unknown)).toBe(false);
    expect(unknown).toBeInstanceOf(UnknownKindError);
  });
});
