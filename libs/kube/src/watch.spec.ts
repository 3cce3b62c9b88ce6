// watchObjects against the real harness API server: the full set first, then changes in order,
// across server-ended watches (timeoutSeconds) without loss or repeats, narrowed by selectors,
// and a custom resource whose CRD appears after the watch started.
import { adminConnection, configMap, createNamespace, uniqueName } from '../testdata/cluster';
import type { RequestEvent } from './connection';
import { UnknownKindError } from './errors';
import { ObjectClient } from './object-client';
import type { KubeObject } from './types';
import { watchObjects, type WatchEvent, type WatchOptions, type WatchTarget } from './watch';
import { eventually } from '../testdata/eventually';

const watched: RequestEvent[] = [];
const connection = adminConnection({ onRequest: (e) => watched.push(e) });
const client = new ObjectClient(connection);
afterAll(() => connection.close());

const applyOpts = { dryRun: false, force: true, fieldManager: 'flotilla-test' };

interface Recorded {
  synced: KubeObject[][];
  events: WatchEvent[];
  errors: Error[];
  stop: () => Promise<void>;
}

function start(target: WatchTarget, options: Partial<WatchOptions> = {}): Recorded {
  const ac = new AbortController();
  const rec: Omit<Recorded, 'stop'> = { synced: [], events: [], errors: [] };
  const done = watchObjects(
    client,
    target,
    {
      synced: (objects) => void rec.synced.push(objects),
      event: (e) => void rec.events.push(e),
      error: (err) => void rec.errors.push(err),
    },
    { backoff: { initialMs: 10, maxMs: 200 }, ...options, signal: ac.signal },
  );
  return {
    ...rec,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

const names = (objs: KubeObject[]) => objs.map((o) => o.metadata.name).sort();
const summary = (events: WatchEvent[]) => events.map((e) => `${e.type} ${e.object.metadata.name} ${JSON.stringify(e.object.data ?? {})}`);
const cm = (ns: string, name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name });

describe('watchObjects (real API server)', () => {
  it('gives the current set, then creates, updates and deletes in order', async () => {
    const ns = await createNamespace(client, 'watch');
    await client.apply(configMap(ns, 'a', { v: '1' }), applyOpts);
    const w = start({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns });
    try {
      await eventually('synced', () => w.synced.length === 1);
      // kube-root-ca.crt is the controller manager's, in every namespace
      expect(names(w.synced[0])).toEqual(['a', 'kube-root-ca.crt']);
      expect(w.synced[0].find((o) => o.metadata.name === 'a')).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { v: '1' } });

      await client.apply(configMap(ns, 'b', { v: '1' }), applyOpts);
      await client.apply(configMap(ns, 'a', { v: '2' }), applyOpts);
      await client.delete(cm(ns, 'b'));
      await eventually('the delete of b', () => w.events.some((e) => e.type === 'DELETED'));
      expect(summary(w.events)).toEqual(['ADDED b {"v":"1"}', 'MODIFIED a {"v":"2"}', 'DELETED b {"v":"1"}']);
      expect(w.errors).toEqual([]);
    } finally {
      await w.stop();
    }
  });

  it('resumes across server-ended watches: every change once, none twice', async () => {
    const ns = await createNamespace(client, 'watch-resume');
    const watchesEnded = () => watched.filter((e) => e.path === `/api/v1/namespaces/${ns}/configmaps` && e.statusCode === 200).length;
    const w = start({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns }, { timeoutSeconds: 1 });
    try {
      await eventually('synced', () => w.synced.length === 1);
      for (let i = 0; i < 4; i++) {
        const ended = watchesEnded();
        await client.apply(configMap(ns, `c${i}`, { i: String(i) }), applyOpts);
        await eventually(`c${i}`, () => w.events.some((e) => e.object.metadata.name === `c${i}`));
        // the next change goes in after at least one more server-ended watch (the list counts as one request)
        await eventually('a watch ended by the server', () => watchesEnded() > ended + 1);
      }
      const ended = watchesEnded();
      await eventually('two more restarts', () => watchesEnded() >= ended + 2);
      const mine = w.events.filter((e) => e.object.metadata.name.startsWith('c'));
      expect(summary(mine)).toEqual([0, 1, 2, 3].map((i) => `ADDED c${i} {"i":"${i}"}`));
      const versions = w.events.map((e) => e.object.metadata.resourceVersion);
      expect(new Set(versions).size).toBe(versions.length);
      expect(w.synced).toHaveLength(1);
      expect(w.errors).toEqual([]);
    } finally {
      await w.stop();
    }
  });

  it('narrows the set and the events with a label selector', async () => {
    const ns = await createNamespace(client, 'watch-sel');
    await client.apply(configMap(ns, 'in0', {}, { labels: { pick: 'yes' } }), applyOpts);
    await client.apply(configMap(ns, 'out0', {}), applyOpts);
    const w = start({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, labelSelector: 'pick=yes' });
    try {
      await eventually('synced', () => w.synced.length === 1);
      expect(names(w.synced[0])).toEqual(['in0']);
      // created before in1, so it would arrive first if the selector let it through
      await client.apply(configMap(ns, 'out1', {}), applyOpts);
      await client.apply(configMap(ns, 'in1', {}, { labels: { pick: 'yes' } }), applyOpts);
      await eventually('in1', () => w.events.length > 0);
      expect(summary(w.events)).toEqual(['ADDED in1 {}']);
    } finally {
      await w.stop();
    }
  });

  it('watches a custom resource whose CRD is applied after the watch started', async () => {
    const group = `${uniqueName('w')}.flotilla.test`;
    const target = { apiVersion: `${group}/v1`, kind: 'Gadget' };
    const w = start(target);
    try {
      await eventually('UnknownKindError reported', () => w.errors.some((e) => e instanceof UnknownKindError));
      await client.apply(
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `gadgets.${group}` },
          spec: {
            group,
            scope: 'Namespaced',
            names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
            versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
          },
        },
        applyOpts,
      );
      await eventually('synced', () => w.synced.length >= 1);
      expect(w.synced[w.synced.length - 1]).toEqual([]);
      const ns = await createNamespace(client, 'watch-cr');
      await client.apply({ ...target, metadata: { name: 'g1', namespace: ns }, spec: { size: 3 } }, applyOpts);
      await eventually('g1', () => w.events.length > 0);
      expect(w.events[0]).toMatchObject({ type: 'ADDED', object: { apiVersion: target.apiVersion, kind: 'Gadget', metadata: { name: 'g1', namespace: ns }, spec: { size: 3 } } });
    } finally {
      await w.stop();
    }
  });
});
