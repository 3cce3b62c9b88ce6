// watchObjects' recovery paths against a loopback server playing an API server: 410 Gone as an
// ERROR event and as an answer (relist, synced again), a dropped connection (resume from the last
// resourceVersion seen), growing and resetting backoff (driven by an injected sleep), handler errors.
import { startLoopback, type Loopback } from '../testdata/loopback-server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClusterConnection } from './connection';
import { KubeApiError, WatchEventError, WatchExpiredError, WatchHandlerError } from './errors';
import { ObjectClient } from './object-client';
import type { KubeObject } from './types';
import { DEFAULT_WATCH_BACKOFF, watchBackoffDelay, watchObjects, type WatchEvent } from './watch';
import { eventually } from '../testdata/eventually';

type Reply = (res: ServerResponse) => void;
let loopback: Loopback;
let url: string;
let lists: Reply[] = [];
let watches: Reply[] = [];
/** query of every list and watch request, in order */
let seen: URLSearchParams[] = [];

const COLLECTION = '/api/v1/namespaces/ns/configmaps';
const item = (name: string, rv: string) => ({ metadata: { name, namespace: 'ns', resourceVersion: rv }, data: { rv } });
const obj = (name: string, rv: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', ...item(name, rv) });
const json = (res: ServerResponse, code: number, body: unknown) => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const list = (rv: string, ...names: string[]): Reply => (res) => json(res, 200, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: rv }, items: names.map((n) => item(n, rv)) });
const line = (type: string, object: unknown) => JSON.stringify({ type, object }) + '\n';
/** a watch that sends `lines` and then ends as the server wants: normally, by dropping, or never */
const watch = (lines: string[], end: 'end' | 'drop' | 'hold'): Reply => (res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  for (const l of lines) res.write(l);
  if (end === 'end') res.end();
  // half a line, then the socket goes away
  else if (end === 'drop') res.write('{"type":"ADDED","obj', () => res.destroy());
};

beforeAll(async () => {
  loopback = await startLoopback((req: IncomingMessage, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/api/v1') return json(res, 200, { resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true }] });
    if (u.pathname !== COLLECTION) return json(res, 404, { kind: 'Status', code: 404, reason: 'NotFound' });
    seen.push(u.searchParams);
    const next = (u.searchParams.get('watch') ? watches : lists).shift() ?? watch([], 'hold');
    next(res);
  });
  url = loopback.url;
});

afterAll(() => loopback.close());

beforeEach(() => {
  seen = [];
  lists = [];
  watches = [];
});

/** Runs watchObjects with a sleep that records each pause and returns at once. */
function run(opts: { failEventOnce?: boolean } = {}) {
  const conn = ClusterConnection.create({ server: url, token: 't' });
  const ac = new AbortController();
  const rec = { synced: [] as string[][], events: [] as string[], errors: [] as Error[], pauses: [] as number[] };
  let failed = false;
  const done = watchObjects(
    new ObjectClient(conn),
    { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', labelSelector: 'a=b' },
    {
      synced: (objects: KubeObject[]) => void rec.synced.push(objects.map((o) => `${o.kind} ${o.metadata.name}`)),
      event: (e: WatchEvent) => {
        if (opts.failEventOnce && !failed) {
          failed = true;
          throw new Error('handler broke');
        }
        rec.events.push(`${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion}`);
      },
      error: (err) => void rec.errors.push(err),
    },
    {
      signal: ac.signal,
      timeoutSeconds: 7,
      random: () => 0,
      sleep: async (ms) => void rec.pauses.push(ms),
    },
  );
  const stop = async () => {
    ac.abort();
    await done;
    await conn.close();
  };
  return { rec, stop };
}

const watchQueries = () => seen.filter((q) => q.get('watch')).map((q) => q.get('resourceVersion'));
const listCount = () => seen.filter((q) => !q.get('watch')).length;

describe('watchObjects recovery (loopback API server)', () => {
  it('relists and calls synced again after a 410 ERROR event, then watches from the new list', async () => {
    lists = [list('10', 'x'), list('20', 'x', 'y', 'z')];
    watches = [watch([line('ADDED', obj('y', '11')), line('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 11 (15)' })], 'hold')];
    const { rec, stop } = run();
    try {
      await eventually('the watch after the relist', () => watchQueries().length === 2);
      expect(rec.synced).toEqual([['ConfigMap x'], ['ConfigMap x', 'ConfigMap y', 'ConfigMap z']]);
      expect(rec.events).toEqual(['ADDED y 11']);
      expect(watchQueries()).toEqual(['10', '20']);
      expect(rec.errors).toHaveLength(1);
      expect(rec.errors[0]).toBeInstanceOf(WatchExpiredError);
      const first = seen.find((q) => q.get('watch'));
      expect(Object.fromEntries(first ?? [])).toEqual({ watch: '1', resourceVersion: '10', allowWatchBookmarks: 'true', timeoutSeconds: '7', labelSelector: 'a=b' });
      expect(seen[0].get('labelSelector')).toBe('a=b');
    } finally {
      await stop();
    }
  });

  it('relists after a watch request answered 410 Gone', async () => {
    lists = [list('10', 'x'), list('30', 'y')];
    watches = [(res) => json(res, 410, { kind: 'Status', status: 'Failure', code: 410, reason: 'Expired', message: 'too old' })];
    const { rec, stop } = run();
    try {
      await eventually('the watch after the relist', () => watchQueries().length === 2);
      expect(rec.synced).toEqual([['ConfigMap x'], ['ConfigMap y']]);
      expect(watchQueries()).toEqual(['10', '30']);
      expect(rec.errors[0]).toBeInstanceOf(WatchExpiredError);
      expect((rec.errors[0].cause as KubeApiError).statusCode).toBe(410);
    } finally {
      await stop();
    }
  });

  it('resumes from the last resourceVersion after a dropped connection; backoff grows on failures and resets after a healthy watch', async () => {
    lists = [list('10', 'x')];
    watches = [
      watch([line('ADDED', obj('a', '11')), line('BOOKMARK', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '13' } }), line('MODIFIED', obj('a', '14'))], 'drop'),
      watch([], 'drop'),
      (res) => json(res, 500, { kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd unhappy' }),
      watch([line('ERROR', { kind: 'Status', code: 500, reason: 'InternalError', message: 'stream broke' })], 'end'),
      watch([line('DELETED', obj('a', '15'))], 'end'),
    ];
    const { rec, stop } = run();
    try {
      await eventually('the sixth watch', () => watchQueries().length === 6);
      expect(watchQueries()).toEqual(['10', '14', '14', '14', '14', '15']);
      expect(listCount()).toBe(1);
      expect(rec.synced).toEqual([['ConfigMap x']]);
      expect(rec.events).toEqual(['ADDED a 11', 'MODIFIED a 14', 'DELETED a 15']);
      const { initialMs } = DEFAULT_WATCH_BACKOFF;
      // healthy (delivered events) → initial; then three failures in a row; then a healthy watch resets it
      expect(rec.pauses).toEqual([initialMs, initialMs * 2, initialMs * 4, initialMs * 8, initialMs]);
      expect(rec.errors.map((e) => e.constructor.name)).toEqual(['KubeApiError', 'KubeApiError', 'KubeApiError', 'WatchEventError']);
      expect((rec.errors[2] as KubeApiError).statusCode).toBe(500);
      expect(rec.errors[3]).toBeInstanceOf(WatchEventError);
    } finally {
      await stop();
    }
  });

  it('relists when a handler throws, so the caller gets the full set again', async () => {
    lists = [list('10', 'x'), list('12', 'x', 'y')];
    watches = [watch([line('ADDED', obj('y', '11')), line('ADDED', obj('z', '12'))], 'hold')];
    const { rec, stop } = run({ failEventOnce: true });
    try {
      await eventually('the watch after the relist', () => watchQueries().length === 2);
      expect(rec.synced).toEqual([['ConfigMap x'], ['ConfigMap x', 'ConfigMap y']]);
      expect(rec.events).toEqual([]);
      expect(watchQueries()).toEqual(['10', '12']);
      expect(rec.errors[0]).toBeInstanceOf(WatchHandlerError);
      expect(rec.errors[0].message).toMatch(/ConfigMap \(v1\) in namespace ns \[labels a=b\]: event handler failed: handler broke/);
    } finally {
      await stop();
    }
  });
});

describe('watchBackoffDelay', () => {
  const b = { initialMs: 100, maxMs: 1000, jitter: 0.5 };
  it('doubles per failure up to the cap and adds up to `jitter` of it at random', () => {
    expect([0, 1, 2, 3, 4, 50].map((f) => watchBackoffDelay(b, f, 0))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(watchBackoffDelay(b, 1, 0.5)).toBe(250);
    expect(watchBackoffDelay(b, 3, 0.99)).toBe(1000);
  });
});
