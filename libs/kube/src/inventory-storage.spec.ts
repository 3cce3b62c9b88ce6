import { adminConnection, configMap, createNamespace, testCluster, uniqueName } from '../testdata/cluster';
import { ResourceManager } from './resource-manager';
import { buildInstanceRecord, recordObjects } from './instance-state';
import { stateSecretName } from './inventory-storage';
import { objectRef } from './object-id';

const { connection, manager, client } = testCluster();
const storage = manager.storage;
afterAll(() => connection.close());

const moduleRef = { name: 'timoni.sh/podinfo', repository: 'oci://127.0.0.1:5000/modules/podinfo', version: '6.14.1', digest: 'sha256:0123' };

function record(namespace: string, names: string[], at = '2026-01-02T03:04:05Z') {
  return buildInstanceRecord({
    name: 'app',
    namespace,
    labels: { 'bundle.timoni.sh/name': 'apps' },
    module: moduleRef,
    values: 'replicas: 1\n',
    objects: names.map((n) => objectRef(configMap(namespace, n, {}))),
    images: ['ghcr.io/stefanprodan/podinfo:6.14.1'],
    lastTransitionTime: new Date(at),
  });
}

const b64json = (s: string) => JSON.parse(Buffer.from(s, 'base64').toString('utf8'));

describe('instance storage (real API server)', () => {
  it('creates the namespace and writes the state Secret in Timoni format, field for field', async () => {
    const ns = uniqueName('inv-new');
    await storage.write(record(ns, ['a', 'b']));
    const nsLive = await client.get({ apiVersion: 'v1', kind: 'Namespace', name: ns });
    expect(nsLive.metadata.labels).toMatchObject({ 'app.kubernetes.io/created-by': 'timoni' });

    const secret = await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: stateSecretName('app') });
    expect(secret.metadata.name).toBe('timoni.app');
    expect(secret.type).toBe('timoni.sh/instance');
    expect(secret.metadata.labels).toEqual({
      'app.kubernetes.io/name': 'app',
      'app.kubernetes.io/component': 'instance',
      'app.kubernetes.io/created-by': 'timoni',
      'bundle.timoni.sh/name': 'apps',
    });
    expect(secret.metadata.managedFields?.map((m) => [m.manager, m.operation])).toEqual([['timoni', 'Apply']]);
    expect(Object.keys(secret.data as object)).toEqual(['instance']);
    const json = b64json((secret.data as Record<string, string>).instance);
    expect(Object.keys(json)).toEqual(['kind', 'apiVersion', 'metadata', 'module', 'values', 'lastTransitionTime', 'inventory', 'images']);
    expect(json).toEqual({
      kind: 'Instance',
      apiVersion: 'timoni.sh/v1alpha1',
      metadata: { name: 'app', namespace: ns, labels: { 'bundle.timoni.sh/name': 'apps' } },
      module: { name: 'timoni.sh/podinfo', repository: 'oci://127.0.0.1:5000/modules/podinfo', version: '6.14.1', digest: 'sha256:0123' },
      values: 'replicas: 1\n',
      lastTransitionTime: '2026-01-02T03:04:05Z',
      inventory: { entries: [{ id: `${ns}_a__ConfigMap`, v: 'v1' }, { id: `${ns}_b__ConfigMap`, v: 'v1' }] },
      images: ['ghcr.io/stefanprodan/podinfo:6.14.1'],
    });
    const read = await storage.read(ns, 'app');
    expect(recordObjects(read?.record).map((r) => r.name)).toEqual(['a', 'b']);
  });

  it('a run\'s manager reads a namespace once for all its writes; a long-lived one each time (it may be deleted meanwhile)', async () => {
    const namespaceRequests: string[] = [];
    const counted = adminConnection({ onRequest: (e) => void (e.pathTemplate === '/api/v1/namespaces/{namespace}' && namespaceRequests.push(e.method)) });
    try {
      const lasting = new ResourceManager(counted);
      const ns = uniqueName('inv-ns');
      await lasting.storage.write(record(ns, ['a']));
      await lasting.storage.write(record(ns, ['a', 'b']));
      // read and made, then read again
      expect(namespaceRequests).toEqual(['GET', 'PATCH', 'GET']);

      namespaceRequests.length = 0;
      const run = lasting.withSignal(new AbortController().signal);
      await run.storage.write(record(ns, ['a']));
      // a component's manager within the run shares what the run learned
      await run.withSignal(new AbortController().signal).storage.writePending(record(ns, ['a', 'c']));
      await run.storage.write(record(ns, ['a', 'c']));
      expect(namespaceRequests).toEqual(['GET']);
    } finally {
      await counted.close();
    }
  });

  it('keeps the stored bytes while an upgrade is pending and drops pending on finalisation', async () => {
    const ns = await createNamespace(client, 'inv-pending');
    await storage.write(record(ns, ['a', 'b']));
    const secretOf = () => client.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.app' });
    const storedBytes = ((await secretOf()).data as Record<string, string>).instance;

    await storage.writePending(record(ns, ['a', 'c'], '2026-02-02T00:00:00Z'));
    const pendingSecret = await secretOf();
    expect((pendingSecret.data as Record<string, string>).instance).toBe(storedBytes);
    const state = await storage.read(ns, 'app');
    expect(recordObjects(state?.pending).map((r) => r.name)).toEqual(['a', 'c']);
    expect(recordObjects(state?.record).map((r) => r.name)).toEqual(['a', 'b']);

    await storage.write(record(ns, ['a', 'c'], '2026-02-02T00:00:00Z'));
    const final = await secretOf();
    expect(Object.keys(final.data as object)).toEqual(['instance']);
    expect(b64json((final.data as Record<string, string>).instance).lastTransitionTime).toBe('2026-02-02T00:00:00Z');
  });

  it('replaces a legacy Opaque state Secret and lists instances by bundle', async () => {
    const ns = await createNamespace(client, 'inv-legacy');
    await client.apply(
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'timoni.app', namespace: ns }, type: 'Opaque', data: { instance: 'e30=' } },
      { dryRun: false, force: true, fieldManager: 'timoni' },
    );
    await storage.write(record(ns, ['a']));
    expect((await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.app' })).type).toBe('timoni.sh/instance');
    const listed = await storage.list({ bundle: 'apps', namespace: ns });
    expect(listed.map((s) => s.record.metadata.name)).toEqual(['app']);
    expect(await storage.list({ bundle: 'other-bundle', namespace: ns })).toEqual([]);
  });
});
