import { configMap, createNamespace, testCluster } from '../testdata/cluster';
import { objectRef } from './object-id';
import { sortRefsForDelete } from './resources-delete';
import { defaultApplyOptions } from './resources-apply';
import { staleObjects } from './instance-state';

const { connection, manager, client } = testCluster();
afterAll(() => connection.close());

describe('prune (real API server)', () => {
  it('removes only this instance objects that left the inventory, sparing prune-disabled ones', async () => {
    const ns = await createNamespace(client, 'prune');
    const app = { name: 'app', namespace: ns };
    const previous = await manager.prepare(
      [
        configMap(ns, 'keep', { a: '1' }),
        configMap(ns, 'gone', { a: '1' }),
        configMap(ns, 'protected', { a: '1' }, { annotations: { 'action.timoni.sh/prune': 'disabled' } }),
      ],
      app,
    );
    await manager.applyAllStaged(previous, defaultApplyOptions());
    // an object with the same name pattern but another instance's labels
    const foreign = await manager.prepare([configMap(ns, 'foreign', { a: '1' })], { name: 'other', namespace: ns });
    await manager.applyAllStaged(foreign, defaultApplyOptions());

    const current = previous.filter((o) => o.metadata.name === 'keep');
    const stale = staleObjects([...previous, ...foreign].map(objectRef), current.map(objectRef));
    const cs = await manager.prune(stale, app, { intervalMs: 100, initialIntervalMs: 50, timeoutMs: 10_000, failFast: true });
    expect(Object.fromEntries(cs.entries.map((e) => [e.ref.name, e.action]))).toEqual({
      gone: 'deleted',
      protected: 'skipped',
      foreign: 'skipped',
    });
    const names = (await client.list('v1', 'ConfigMap', { namespace: ns })).map((o) => o.metadata.name).filter((n) => n !== 'kube-root-ca.crt').sort();
    expect(names).toEqual(['foreign', 'keep', 'protected']);

    // a second prune of the same set is a no-op: missing objects count as deleted
    const again = await manager.prune(stale.filter((r) => r.name === 'gone'), app);
    expect(again.entries).toEqual([expect.objectContaining({ action: 'deleted', reason: 'already gone' })]);
  });
});

describe('delete order', () => {
  it('is the reverse of apply order', () => {
    const refs = [
      { group: '', version: 'v1', kind: 'Namespace', namespace: '', name: 'n' },
      { group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'n', name: 'd' },
      { group: '', version: 'v1', kind: 'ConfigMap', namespace: 'n', name: 'c' },
    ];
    expect(sortRefsForDelete(refs).map((r) => r.kind)).toEqual(['Deployment', 'ConfigMap', 'Namespace']);
  });
});
