import { DataSource } from 'typeorm';
import { FixedClock } from '../common/clock';
import { eventually } from '../../test/scheduler-fixtures';
import { DATABASE_KINDS, startTestHub, type TestHub } from '../../test/hub';
import { AuditRetention } from './audit-retention';

// Issue 40, the audit log: on the real hub, on PostgreSQL and on PGlite, every mutating
// and every refused request leaves exactly one entry and one log line, the
// log pages and filters, the database refuses to rewrite it, and retention
// deletes only what is old enough.

const T0 = '2027-03-01T12:00:00.000Z';
const SECRET = 'kube-bearer-0f1e2d3c4b5a69788796a5b4c3d2e1f0';
const WRONG_TOKEN = 'flt_wrong-token-that-must-never-be-stored-4242';

interface Entry {
  id: string;
  at: string;
  actor: { kind: string; id: string; name: string; email: string | null };
  tenant: string | null;
  action: string;
  object: string | null;
  outcome: number;
  requestId: string;
  sourceAddress: string | null;
}

describe.each(DATABASE_KINDS)('audit log on %s', (_label, kind) => {
  let hub: TestHub;
  const clock = new FixedClock(T0);
  let viewer: { id: string; token: string };
  let operator: { id: string; token: string };
  let adminId: string;
  let seq = 0;

  /** One request with a request id of our own, so its entry can be found. */
  async function send(method: string, path: string, opts: { token?: string | null; body?: unknown } = {}): Promise<{ id: string; status: number }> {
    const id = `audit-spec-${++seq}`;
    const headers: Record<string, string> = { 'x-request-id': id };
    const token = opts.token === undefined ? hub.adminToken : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${hub.url}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    await res.text();
    return { id, status: res.status };
  }

  /** Every entry on the given query, following `continue` to the end. */
  async function all(query = ''): Promise<Entry[]> {
    const out: Entry[] = [];
    let next: string | null = null;
    do {
      const q = new URLSearchParams(query);
      q.set('limit', '500');
      if (next) q.set('continue', next);
      const res = await hub.call('GET', `/api/v1/audit?${q}`);
      expect(res.status).toBe(200);
      out.push(...res.body.items);
      next = res.body.continue;
    } while (next);
    return out;
  }

  /** Waits until the entry of `requestId` is stored: entries are written in the order they were queued, so every earlier one is too. */
  async function stored(requestId: string): Promise<void> {
    await eventually(`the audit entry of ${requestId}`, async () => ((await all()).some((e) => e.requestId === requestId) ? true : undefined));
  }

  function auditLines(): Array<Record<string, unknown>> {
    return hub.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.audit === true);
  }

  beforeAll(async () => {
    hub = await startTestHub(kind, {}, { clock });
    const make = async (name: string, role: string) => {
      const res = await hub.call('POST', '/api/v1/tokens', { body: { name, role } });
      expect(res.status).toBe(201);
      return { id: res.body.id as string, token: res.body.token as string };
    };
    viewer = await make('wall', 'viewer');
    operator = await make('ops', 'operator');
    const tokens = await hub.call('GET', '/api/v1/tokens?limit=500');
    adminId = tokens.body.items.find((t: { name: string }) => t.name === 'admin').id;
  });
  afterAll(async () => {
    await hub?.close();
  });

  it('leaves exactly one entry and one log line per mutating or refused request, with who, what, outcome and where', async () => {
    const r = {
      create: await send('POST', '/api/v1/clusters', { token: operator.token, body: { name: 'edge-1', group: 'edge', mode: 'agent' } }),
      update: await send('PATCH', '/api/v1/clusters/edge-1', { token: operator.token, body: { labels: { site: 'harbour' } } }),
      withSecret: await send('POST', '/api/v1/clusters', { token: operator.token, body: { name: 'push-1', mode: 'push', endpoint: { server: 'https://127.0.0.1:1' }, credentials: { token: SECRET } } }),
      invalid: await send('POST', '/api/v1/clusters', { token: operator.token, body: { name: 'Not A Label', mode: 'agent' } }),
      remove: await send('DELETE', '/api/v1/clusters/edge-1', { token: operator.token }),
      read: await send('GET', '/api/v1/clusters', { token: operator.token }),
      noToken: await send('POST', '/api/v1/projects', { token: null, body: { name: 'web' } }),
      wrongToken: await send('GET', '/api/v1/clusters', { token: WRONG_TOKEN }),
      viewerWrites: await send('POST', '/api/v1/projects/web/suspend', { token: viewer.token }),
      viewerReadsAdmin: await send('GET', '/api/v1/tokens', { token: viewer.token }),
      operatorReadsAudit: await send('GET', '/api/v1/audit', { token: operator.token }),
      // a parameter that does not decode: answered 400 before the token is read (so by an unknown actor), and still recorded
      badEncoding: await send('DELETE', '/api/v1/projects/%E0%A4%A', { token: operator.token }),
      revoke: await send('DELETE', `/api/v1/tokens/${viewer.id}`),
    };
    expect(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.status]))).toEqual({
      create: 201,
      update: 200,
      withSecret: 201,
      invalid: 400,
      remove: 204,
      read: 200,
      noToken: 401,
      wrongToken: 401,
      viewerWrites: 403,
      viewerReadsAdmin: 403,
      operatorReadsAudit: 403,
      badEncoding: 400,
      revoke: 200,
    });
    await stored(r.revoke.id);

    const entries = await all();
    const ofRequest = (id: string) => entries.filter((e) => e.requestId === id);
    for (const [name, req] of Object.entries(r)) expect([name, ofRequest(req.id).length]).toEqual([name, name === 'read' ? 0 : 1]);

    const ops = { kind: 'token', id: operator.id, name: 'ops', email: null };
    const anonymous = { kind: 'anonymous', id: 'anonymous', name: 'anonymous', email: null };
    const expected: Record<string, Omit<Entry, 'id' | 'requestId'>> = {
      create: { at: T0, actor: ops, tenant: null, action: 'POST /api/v1/clusters', object: 'cluster/edge-1', outcome: 201, sourceAddress: '127.0.0.1' },
      update: { at: T0, actor: ops, tenant: null, action: 'PATCH /api/v1/clusters/:name', object: 'cluster/edge-1', outcome: 200, sourceAddress: '127.0.0.1' },
      withSecret: { at: T0, actor: ops, tenant: null, action: 'POST /api/v1/clusters', object: 'cluster/push-1', outcome: 201, sourceAddress: '127.0.0.1' },
      invalid: { at: T0, actor: ops, tenant: null, action: 'POST /api/v1/clusters', object: 'cluster', outcome: 400, sourceAddress: '127.0.0.1' },
      remove: { at: T0, actor: ops, tenant: null, action: 'DELETE /api/v1/clusters/:name', object: 'cluster/edge-1', outcome: 204, sourceAddress: '127.0.0.1' },
      noToken: { at: T0, actor: anonymous, tenant: null, action: 'POST /api/v1/projects', object: 'project', outcome: 401, sourceAddress: '127.0.0.1' },
      wrongToken: { at: T0, actor: anonymous, tenant: null, action: 'GET /api/v1/clusters', object: 'cluster', outcome: 401, sourceAddress: '127.0.0.1' },
      viewerWrites: { at: T0, actor: { kind: 'token', id: viewer.id, name: 'wall', email: null }, tenant: null, action: 'POST /api/v1/projects/:name/suspend', object: 'project/web', outcome: 403, sourceAddress: '127.0.0.1' },
      viewerReadsAdmin: { at: T0, actor: { kind: 'token', id: viewer.id, name: 'wall', email: null }, tenant: null, action: 'GET /api/v1/tokens', object: 'token', outcome: 403, sourceAddress: '127.0.0.1' },
      operatorReadsAudit: { at: T0, actor: ops, tenant: null, action: 'GET /api/v1/audit', object: 'audit', outcome: 403, sourceAddress: '127.0.0.1' },
      badEncoding: { at: T0, actor: anonymous, tenant: null, action: 'DELETE /api/v1/projects/:name', object: 'project', outcome: 400, sourceAddress: '127.0.0.1' },
      revoke: { at: T0, actor: { kind: 'token', id: adminId, name: 'admin', email: null }, tenant: null, action: 'DELETE /api/v1/tokens/:id', object: `token/${viewer.id}`, outcome: 200, sourceAddress: '127.0.0.1' },
    };
    for (const [name, want] of Object.entries(expected)) {
      const [got] = ofRequest(r[name as keyof typeof r].id);
      expect([name, { ...got, id: undefined, requestId: undefined }]).toEqual([name, { ...want, id: undefined, requestId: undefined }]);
    }

    // the same fields, once, in the log
    const lines = auditLines();
    for (const [name, want] of Object.entries(expected)) {
      const mine = lines.filter((l) => l.requestId === r[name as keyof typeof r].id);
      expect([name, mine.length]).toEqual([name, 1]);
      expect(mine[0]).toMatchObject({ audit: true, at: want.at, actorKind: want.actor.kind, actorId: want.actor.id, actorName: want.actor.name, action: want.action, object: want.object, outcome: want.outcome, sourceAddress: want.sourceAddress, tenant: null });
    }
    expect(lines.some((l) => l.requestId === r.read.id)).toBe(false);

    // no token and no credential, in any entry or any log line
    const everything = JSON.stringify(entries) + hub.logs.join('\n');
    for (const secret of [SECRET, WRONG_TOKEN, hub.adminToken, viewer.token, operator.token]) expect(everything).not.toContain(secret);
  });

  it('pages newest first by continue token and filters by actor, object and time', async () => {
    clock.set('2027-03-02T00:00:00.000Z');
    const early = await send('POST', '/api/v1/clusters', { token: operator.token, body: { name: 'page-a', mode: 'agent' } });
    clock.set('2027-03-03T00:00:00.000Z');
    for (const name of ['page-b', 'page-c', 'page-d']) {
      await send('POST', '/api/v1/clusters', { token: operator.token, body: { name, mode: 'agent' } });
      clock.advance(1000);
    }
    const last = await send('DELETE', '/api/v1/clusters/page-b');
    await stored(last.id);

    const everything = await all();
    const seen: string[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const res = await hub.call('GET', `/api/v1/audit?limit=3${next ? `&continue=${next}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.items.map((e: Entry) => e.id));
      next = res.body.continue;
      pages++;
    } while (next);
    expect(seen).toEqual(everything.map((e) => e.id));
    expect(pages).toBe(Math.ceil(everything.length / 3));
    const times = everything.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);

    const byOps = await all('actor=ops');
    expect(byOps.length).toBeGreaterThan(0);
    expect(byOps.every((e) => e.actor.name === 'ops')).toBe(true);
    expect(await all(`actor=${operator.id}`)).toEqual(byOps);
    expect((await all('actor=admin')).every((e) => e.actor.id === adminId)).toBe(true);

    expect((await all('object=cluster/page-b')).map((e) => e.action)).toEqual(['DELETE /api/v1/clusters/:name', 'POST /api/v1/clusters']);
    const clusters = await all('object=cluster');
    expect(clusters.length).toBeGreaterThan(5);
    expect(clusters.every((e) => e.object === 'cluster' || e.object!.startsWith('cluster/'))).toBe(true);

    const day2 = await all('since=2027-03-02T00:00:00Z&until=2027-03-03T00:00:00Z');
    expect(day2.map((e) => e.requestId)).toEqual([early.id]);
    expect((await all('since=2027-03-03T00:00:00Z')).map((e) => e.object)).toEqual(['cluster/page-b', 'cluster/page-d', 'cluster/page-c', 'cluster/page-b']);

    const bad: Array<[string, string]> = [
      ['limit=0', 'limit: must be at least 1'],
      ['limit=501', 'limit: must be at most 500'],
      ['continue=nope', 'continue: must be the continue token of a previous page'],
      ['since=yesterday', 'since: must be an ISO 8601 time'],
      ['since=2027-03-03T00:00:00Z&until=2027-03-02T00:00:00Z', 'until: 2027-03-02T00:00:00Z is not after since'],
      ['object=/web', 'object: must be kind/name (e.g. project/web) or a kind alone'],
      ['object=project/', 'object: must be kind/name (e.g. project/web) or a kind alone'],
      [`object=${'k'.repeat(33)}`, 'object: must be kind/name (e.g. project/web) or a kind alone'],
      [`actor=${'a'.repeat(256)}`, 'actor: must be 1 to 255 characters'],
    ];
    for (const [query, problem] of bad) {
      const res = await hub.call('GET', `/api/v1/audit?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      expect([query, res.body.problems.join('\n')]).toEqual([query, expect.stringContaining(problem)]);
    }
  });

  it('refuses UPDATE, DELETE and TRUNCATE of entries in the database itself', async () => {
    const db = hub.app.get(DataSource);
    const before = await all();
    expect(before.length).toBeGreaterThan(0);
    await expect(db.query(`UPDATE audit_entries SET outcome = 200`)).rejects.toThrow(/audit_entries is append-only: UPDATE refused/);
    await expect(db.query(`DELETE FROM audit_entries`)).rejects.toThrow(/audit_entries is append-only: DELETE refused/);
    await expect(db.query(`TRUNCATE audit_entries`)).rejects.toThrow(/audit_entries is append-only: TRUNCATE refused/);
    // a cutoff set by hand lets no younger row go
    await expect(db.transaction(async (m) => {
      await m.query(`SELECT set_config('flotilla.audit_purge_before', '2000-01-01T00:00:00Z', true)`);
      await m.query(`DELETE FROM audit_entries`);
    })).rejects.toThrow(/append-only: DELETE refused/);
    expect(await all()).toEqual(before);
  });

  it('purges, as of the clock, only the entries older than the retention', async () => {
    const retention = hub.config.audit.retentionMs;
    const old = await all();
    expect(old.length).toBeGreaterThan(0);
    const newestOld = Date.parse(old[0].at);
    clock.set(new Date(newestOld + retention));
    const atCutoff = await send('POST', '/api/v1/clusters', { token: operator.token, body: { name: 'kept-1', mode: 'agent' } });
    clock.set(new Date(newestOld + 2 * retention));
    const fresh = await send('POST', '/api/v1/clusters', { token: operator.token, body: { name: 'kept-2', mode: 'agent' } });
    await stored(fresh.id);
    // the cutoff is now newestOld + retention: every earlier entry goes, the one exactly at it stays
    expect(await hub.app.get(AuditRetention).purge()).toBe(old.length);
    expect((await all()).map((e) => e.requestId)).toEqual([fresh.id, atCutoff.id]);
    expect(await hub.app.get(AuditRetention).purge()).toBe(0);
  });
});
