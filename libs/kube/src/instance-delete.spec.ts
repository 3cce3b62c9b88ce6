import { configMap, createNamespace, testCluster } from '../testdata/cluster';
import { WaitTimeoutError } from './errors';
import { buildInstanceRecord } from './instance-state';
import { objectRef } from './object-id';
import { defaultApplyOptions } from './resources-apply';
import type { KubeObject } from './types';

const { connection, manager, client } = testCluster();
afterAll(() => connection.close());

async function install(ns: string, objects: KubeObject[]): Promise<KubeObject[]> {
  const app = { name: 'app', namespace: ns };
  const prepared = await manager.prepare(objects, app);
  await manager.applyAllStaged(prepared, defaultApplyOptions());
  await manager.storage.write(
    buildInstanceRecord({
      name: 'app', namespace: ns, values: '', objects: prepared.map(objectRef),
      module: { name: 'm', repository: 'oci://r/m', version: '1.0.0', digest: 'sha256:1' },
    }),
  );
  return prepared;
}

const quick = { intervalMs: 100, initialIntervalMs: 50, timeoutMs: 1_500, failFast: true };

describe('deleteInstance (real API server)', () => {
  it('deletes the objects, then the state Secret', async () => {
    const ns = await createNamespace(client, 'del');
    await install(ns, [configMap(ns, 'a', {}), configMap(ns, 'b', {}), configMap(ns, 'kept', {}, { labels: { 'action.timoni.sh/prune': 'disabled' } })]);
    const cs = await manager.deleteInstance({ name: 'app', namespace: ns }, { wait: true, termination: quick });
    expect(cs?.entries.map((e) => [e.ref.name, e.action])).toEqual([['kept', 'skipped'], ['b', 'deleted'], ['a', 'deleted']]);
    expect(await manager.storage.read(ns, 'app')).toBeUndefined();
    // kube-root-ca.crt is the controller manager's, in every namespace
    expect((await client.list('v1', 'ConfigMap', { namespace: ns })).map((o) => o.metadata.name)).toEqual(['kept', 'kube-root-ca.crt']);
    expect(await manager.deleteInstance({ name: 'app', namespace: ns })).toBeUndefined();
  });

  it('keeps the state Secret, marked deleting, when objects do not go away in time', async () => {
    const ns = await createNamespace(client, 'del-stuck');
    // a finalizer nobody removes keeps the object Terminating
    await install(ns, [configMap(ns, 'stuck', {}, { finalizers: ['flotilla.test/hold'] })]);
    const err = await manager.deleteInstance({ name: 'app', namespace: ns }, { wait: true, termination: quick }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as WaitTimeoutError).objects).toEqual([expect.objectContaining({ subject: `ConfigMap/${ns}/stuck`, status: 'Terminating' })]);
    const state = await manager.storage.read(ns, 'app');
    expect(state?.secret.metadata.annotations?.['status.timoni.sh/deleting']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // release it so a retry completes
    await client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'stuck' }, { metadata: { finalizers: null } }, 'merge');
    await manager.deleteInstance({ name: 'app', namespace: ns }, { wait: true, termination: quick });
    expect(await manager.storage.read(ns, 'app')).toBeUndefined();
  });
});
