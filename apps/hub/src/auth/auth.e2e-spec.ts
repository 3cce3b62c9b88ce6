import { DATABASE_KINDS, launch, startTestHub, type TestHub } from '../../test/hub';

describe.each(DATABASE_KINDS)('tokens and roles on %s', (_label, kind) => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub(kind);
  });
  afterAll(() => hub?.close());

  it('leaves health and readiness open', async () => {
    for (const path of ['/healthz', '/readyz']) {
      expect((await hub.call('GET', path, { token: null })).status).toBe(200);
    }
  });

  it('refuses API calls without a token, with a malformed header or an unknown token', async () => {
    const none = await hub.call('GET', '/api/v1/tokens', { token: null });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', message: expect.stringContaining('Authorization: Bearer') });
    expect((await hub.call('GET', '/api/v1/tokens', { token: 'flt_nope' })).status).toBe(401);
    const res = await fetch(`${hub.url}/api/v1/tokens`, { headers: { authorization: 'Basic abc' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('lets an admin create tokens whose role limits what they may do', async () => {
    const op = await hub.call('POST', '/api/v1/tokens', { body: { name: 'ci', role: 'operator' } });
    expect(op.status).toBe(201);
    expect(op.body).toMatchObject({ name: 'ci', role: 'operator', revokedAt: null, token: expect.stringMatching(/^flt_/) });
    const viewer = await hub.call('POST', '/api/v1/tokens', { body: { name: 'dash', role: 'viewer' } });

    // operator: not an admin
    const opList = await hub.call('GET', '/api/v1/tokens', { token: op.body.token });
    expect(opList.status).toBe(403);
    expect(opList.body.message).toBe('token "ci" has role operator; this needs admin');
    expect((await hub.call('POST', '/api/v1/tokens', { token: viewer.body.token, body: { name: 'x', role: 'admin' } })).status).toBe(403);

    // the list never shows tokens or their hashes
    const list = await hub.call('GET', '/api/v1/tokens');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(3);
    expect(list.body.items.map((t: { name: string }) => t.name)).toEqual(['admin', 'ci', 'dash']);
    expect(list.text).not.toContain(op.body.token);
    expect(list.text).not.toContain(hub.adminToken);
    expect(list.text).not.toMatch(/hash/i);
  });

  it('stops a revoked token at once', async () => {
    const t = await hub.call('POST', '/api/v1/tokens', { body: { name: 'temp', role: 'admin' } });
    expect((await hub.call('GET', '/api/v1/tokens', { token: t.body.token })).status).toBe(200);
    const revoked = await hub.call('DELETE', `/api/v1/tokens/${t.body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    expect((await hub.call('GET', '/api/v1/tokens', { token: t.body.token })).status).toBe(401);
    expect((await hub.call('DELETE', '/api/v1/tokens/not-a-uuid')).status).toBe(404);
  });

  it('refuses to let a token revoke itself (409), so a caller cannot lock itself out mid-session', async () => {
    const t = await hub.call('POST', '/api/v1/tokens', { body: { name: 'self', role: 'admin' } });
    const self = await hub.call('DELETE', `/api/v1/tokens/${t.body.id}`, { token: t.body.token });
    expect(self.status).toBe(409);
    expect(self.body.message).toMatch(/another admin token/);
    expect((await hub.call('GET', '/api/v1/tokens', { token: t.body.token })).status).toBe(200);
    // another admin token may
    expect((await hub.call('DELETE', `/api/v1/tokens/${t.body.id}`)).status).toBe(200);
  });

  it('lists every validation problem in one 400', async () => {
    const res = await hub.call('POST', '/api/v1/tokens', { body: { name: 'Bad_Name', role: 'root', extra: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('InvalidInput');
    expect(res.body.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^name: must be a DNS label/),
        'role: must be one of viewer, operator, admin',
        'extra: unknown field',
      ]),
    );
    expect(res.body.problems).toHaveLength(3);
  });

  it('answers malformed JSON, a non-object body and bad paging with 400, not 500', async () => {
    const bad = await hub.call('POST', '/api/v1/tokens', { rawBody: '{"name":' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('request body is not valid JSON');
    expect((await hub.call('POST', '/api/v1/tokens', { rawBody: '[1,2]' })).status).toBe(400);
    const huge = await hub.call('POST', '/api/v1/tokens', { rawBody: JSON.stringify({ name: 'x'.repeat(2 << 20) }) });
    expect(huge.status).toBe(413);
    expect(huge.body.message).toBe('request body is too large');
    const page = await hub.call('GET', '/api/v1/tokens?limit=0&offset=-1');
    expect(page.status).toBe(400);
    expect(page.body.problems.sort()).toEqual(['limit: must be at least 1', 'offset: must be at least 0']);
  });

  it('logs one JSON line per request with a request id, and never a token', async () => {
    const res = await fetch(`${hub.url}/api/v1/tokens`, { headers: { authorization: `Bearer ${hub.adminToken}`, 'x-request-id': 'trace-42' } });
    expect(res.headers.get('x-request-id')).toBe('trace-42');
    const line = hub.logs.map((l) => JSON.parse(l)).find((l) => l.requestId === 'trace-42');
    expect(line).toMatchObject({ msg: 'request', method: 'GET', path: '/api/v1/tokens', status: 200, tokenName: 'admin' });
    const all = hub.logs.join('\n');
    expect(all).not.toContain(hub.adminToken);
    expect(all).not.toMatch(/flt_[A-Za-z0-9_-]{20,}/);
  });

  it("serves /metrics, which names every tenant's Projects and clusters, to global tokens only when no metrics token is set", async () => {
    const none = await hub.call('GET', '/metrics', { token: null });
    expect(none.status).toBe(401);
    expect(none.body.message).toContain('/metrics needs a bearer token: a global API token');
    expect((await hub.call('POST', '/api/v1/tenants', { body: { name: 'metrics-team', destinations: { groups: ['x'] }, namespaces: ['x'], serviceAccounts: ['x'], repositories: ['oci://127.0.0.1:5000/x'] } })).status).toBe(201);
    const member = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'metrics-member', role: 'operator', tenant: 'metrics-team' } })).body.token;
    const refused = await hub.call('GET', '/metrics', { token: member });
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('flotilla_hub_http_requests_total');
    const viewer = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'metrics-viewer', role: 'viewer' } })).body.token;
    const ok = await hub.call('GET', '/metrics', { token: viewer });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('flotilla_hub_http_requests_total');
  });
});

describe('the first admin token', () => {
  it('is generated and announced once when FLOTILLA_ADMIN_TOKEN is unset', async () => {
    const hub = await startTestHub('postgres', { adminToken: undefined });
    try {
      expect(hub.announced).toHaveLength(1);
      expect(hub.adminToken).toMatch(/^flt_/);
      expect((await hub.call('GET', '/api/v1/tokens')).status).toBe(200);
      await hub.stop();
      const again = await launch(hub.config);
      try {
        expect(again.announced).toEqual([]);
        expect((await again.call('GET', '/api/v1/tokens', { token: hub.adminToken })).status).toBe(200);
      } finally {
        await again.stop();
      }
    } finally {
      await hub.close().catch(() => undefined);
    }
  });
});
