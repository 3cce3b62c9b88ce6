import { configMap, createNamespace, testCluster, uniqueName } from '../testdata/cluster';
import { defaultApplyOptions } from './resources-apply';
import type { KubeObject } from './types';

const { connection, manager, client } = testCluster();
afterAll(() => connection.close());

const secret = (namespace: string, data: Record<string, string>): KubeObject => ({
  apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace }, type: 'Opaque', data,
});
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('diff (real API server)', () => {
  it('reports created, configured and unchanged objects without writing, Secret values masked', async () => {
    const ns = await createNamespace(client, 'diff');
    const app = { name: 'app', namespace: ns };
    await manager.applyAllStaged(await manager.prepare([configMap(ns, 'same', { a: '1' }), configMap(ns, 'cfg', { a: '1' }), secret(ns, { password: b64('hunter2'), user: b64('me') })], app), defaultApplyOptions());
    const before = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'cfg' });

    const desired = await manager.prepare(
      [configMap(ns, 'same', { a: '1' }), configMap(ns, 'cfg', { a: '2' }), configMap(ns, 'new', { a: '1' }), secret(ns, { password: b64('s3cret!'), user: b64('me') })],
      app,
    );
    const diff = await manager.diff(desired);
    const byName = Object.fromEntries(diff.map((d) => [d.ref.name, d]));
    expect(byName.same.action).toBe('unchanged');
    expect(byName.new.action).toBe('created');
    expect(byName.cfg.action).toBe('configured');
    expect(byName.cfg.changes).toEqual([{ path: 'data.a', kind: 'changed', before: '1', after: '2' }]);
    expect(byName.cfg.text).toBe(`ConfigMap/${ns}/cfg (configured)\n  data.a\n    - 1\n    + 2`);
    expect(byName.creds.changes).toEqual([{ path: 'data.password', kind: 'changed', before: '*** (before)', after: '*** (after)' }]);
    const all = JSON.stringify(diff);
    expect(all).not.toContain(b64('hunter2'));
    expect(all).not.toContain(b64('s3cret!'));

    // nothing was written
    const after = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'cfg' });
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(await client.getOptional({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'new' })).toBeUndefined();
  });

  it('reports objects of a namespace not created yet as created', async () => {
    const ns = uniqueName('diff-fresh');
    const desired = await manager.prepare([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, configMap(ns, 'c', { a: '1' })], { name: 'app', namespace: ns });
    const diff = await manager.diff(desired);
    expect(diff.map((d) => [d.subject, d.action])).toEqual([[`Namespace/${ns}`, 'created'], [`ConfigMap/${ns}/c`, 'created']]);
    expect(diff[1].changes).toEqual([{ path: '', kind: 'added', after: expect.objectContaining({ data: { a: '1' } }) }]);
    expect(await client.getOptional({ apiVersion: 'v1', kind: 'Namespace', name: ns })).toBeUndefined();
  });
});
