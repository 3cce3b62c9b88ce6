import { startTestHub, type TestHub } from '../test/hub';

// Input that once reached the database or the validator's recursion and came
// back as a 500, or was accepted when it should not have been: each now gets
// a clear 4xx and changes nothing.

describe('the API edge refuses hostile input with a 4xx', () => {
  let hub: TestHub;
  const project = { name: 'edge', namespace: 'ns', source: { repository: 'oci://r.example/a/b' }, targets: { names: ['c'] } };

  const raw = (method: string, path: string, body: string | undefined, contentType?: string) =>
    fetch(`${hub.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${hub.adminToken}`, ...(contentType ? { 'content-type': contentType } : {}) },
      ...(body !== undefined ? { body } : {}),
    });
  const problemsOf = async (res: Response) => ((await res.json()) as { problems?: string[] }).problems ?? [];

  beforeAll(async () => {
    hub = await startTestHub('postgres');
    expect((await hub.call('POST', '/api/v1/clusters', { body: { name: 'c', mode: 'agent' } })).status).toBe(201);
    expect((await hub.call('POST', '/api/v1/projects', { body: project })).status).toBe(201);
  });
  afterAll(() => hub?.close());

  it('refuses JSON nested 100,000 deep on a body route', async () => {
    const deep = `{"name":"deep","mode":"agent","labels":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const res = await raw('POST', '/api/v1/clusters', deep, 'application/json');
    expect(res.status).toBe(400);
    expect(await problemsOf(res)).toEqual(['labels[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested deeper than 32 levels']);
    expect((await hub.call('GET', '/api/v1/clusters/deep')).status).toBe(404);
  });

  it('refuses NUL characters in a path, a body value, a selector value and a key', async () => {
    const inPath = await raw('PATCH', '/api/v1/clusters/a%00b', JSON.stringify({ group: 'g' }), 'application/json');
    expect(inPath.status).toBe(400);
    expect(await problemsOf(inPath)).toEqual(['path parameter name: must not contain NUL characters']);
    const cases: Array<[unknown, string]> = [
      [{ ...project, name: 'nul1', annotations: { a: 'x\u0000y' } }, 'annotations.a: must not contain NUL characters'],
      [{ ...project, name: 'nul2', targets: { labelSelector: { matchLabels: { env: 'p\u0000' } } } }, 'targets.labelSelector.matchLabels.env: must not contain NUL characters'],
      [{ ...project, name: 'nul3', annotations: { 'a\u0000': 'x' } }, 'annotations: a key must not contain NUL characters'],
    ];
    for (const [body, problem] of cases) {
      const res = await hub.call('POST', '/api/v1/projects', { body });
      expect([res.status, res.body.problems]).toEqual([400, [problem]]);
    }
    const ca = await hub.call('POST', '/api/v1/clusters', { body: { name: 'nulca', mode: 'push', endpoint: { server: 'https://127.0.0.1:1', caData: 'a\u0000b' }, credentials: { token: 't' } } });
    expect([ca.status, ca.body.problems]).toEqual([400, ['endpoint.caData: must not contain NUL characters']]);
    expect((await hub.call('GET', '/api/v1/projects')).body.items.map((p: { name: string }) => p.name)).toEqual(['edge']);
  });

  it.each(['/api/v1/clusters', '/api/v1/projects', '/api/v1/tokens'])('refuses an offset past any list on %s', async (route) => {
    for (const offset of ['99999999999999999999', '1.7e308']) {
      const res = await hub.call('GET', `${route}?offset=${offset}`);
      expect([res.status, res.body.problems]).toEqual([400, ['offset: must be at most 2147483647']]);
    }
    expect((await hub.call('GET', `${route}?offset=2147483647`)).status).toBe(200);
  });

  it('limits serviceAccountName on update as on create', async () => {
    const res = await hub.call('PATCH', '/api/v1/projects/edge', { body: { serviceAccountName: 'a'.repeat(254) } });
    expect([res.status, res.body.problems]).toEqual([400, ['serviceAccountName: must be at most 253 characters']]);
  });

  it('answers 404 for a token id that is not a UUID, dashes only included', async () => {
    expect((await hub.call('DELETE', `/api/v1/tokens/${'-'.repeat(36)}`)).status).toBe(404);
    expect((await hub.call('DELETE', '/api/v1/tokens/zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz')).status).toBe(404);
  });

  it('refuses a body that is not JSON with 415, and changes nothing', async () => {
    for (const [type, body] of [
      ['application/x-www-form-urlencoded', 'suspend=true'],
      ['text/plain', '{"suspend":true}'],
      ['application/xml', '<suspend>true</suspend>'],
      [undefined, '{"suspend":true}'],
    ] as Array<[string | undefined, string]>) {
      const res = await raw('PATCH', '/api/v1/projects/edge', body, type);
      expect(res.status).toBe(415);
      expect(((await res.json()) as { message: string }).message).toMatch(/content type .* is not accepted; send application\/json/);
    }
    const post = await raw('POST', '/api/v1/projects', 'name=other', 'application/x-www-form-urlencoded');
    expect(post.status).toBe(415);
    expect((await hub.call('GET', '/api/v1/projects/edge')).body.suspend).toBe(false);
    // JSON with a charset and vendor +json types are JSON
    expect((await raw('PATCH', '/api/v1/projects/edge', '{"annotations":{"a":"b"}}', 'application/json; charset=utf-8')).status).toBe(200);
    expect((await raw('PATCH', '/api/v1/projects/edge', '{"annotations":{"a":"c"}}', 'application/merge-patch+json')).status).toBe(200);
  });

  it('reports __proto__, constructor and prototype keys as unknown fields', async () => {
    const res = await raw('PATCH', '/api/v1/projects/edge', '{"__proto__":{"suspend":true},"annotations":{"constructor":"x"},"targets":{"prototype":1}}', 'application/json');
    expect(res.status).toBe(400);
    expect((await problemsOf(res)).sort()).toEqual(['__proto__: unknown field', 'annotations.constructor: unknown field', 'targets.prototype: unknown field']);
    expect((await hub.call('GET', '/api/v1/projects/edge')).body.suspend).toBe(false);
  });

  it('refuses a bearer token with spaces or line breaks at registration', async () => {
    for (const token of ['abc def', 'abc\r\nX-Injected: 1', 'abc\n']) {
      const res = await hub.call('POST', '/api/v1/clusters', { body: { name: 'badtoken', mode: 'push', endpoint: { server: 'https://127.0.0.1:1' }, credentials: { token } } });
      expect([res.status, res.body.problems]).toEqual([400, ['credentials.token: must be visible ASCII without spaces or line breaks (it is sent in an Authorization header)']]);
    }
    expect((await hub.call('GET', '/api/v1/clusters/badtoken')).status).toBe(404);
  });

  it('refuses a password in a URL, and never echoes it', async () => {
    const cluster = await hub.call('POST', '/api/v1/clusters', { body: { name: 'userinfo', mode: 'push', endpoint: { server: 'https://admin:s3cret@127.0.0.1:6443' }, credentials: { token: 't' } } });
    expect([cluster.status, cluster.body.problems]).toEqual([400, ['endpoint.server: must not contain a user name or password (user@host); give credentials in their own fields']]);
    const sink = await hub.call('PATCH', '/api/v1/projects/edge', { body: { cdeventsSink: 'https://ci:s3cret@sink.example/events' } });
    expect([sink.status, sink.body.problems]).toEqual([400, ['cdeventsSink: must not contain a user name or password (user@host); give credentials in their own fields']]);
    expect(cluster.text + sink.text).not.toContain('s3cret');
  });

  it('holds every list and string to a documented limit', async () => {
    const big = 'v'.repeat(200 * 1024);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ targets: { names: Array.from({ length: 1001 }, (_, i) => `c${i}`) } }, 'targets.names: must have at most 1000 names (target more clusters by group or label)'],
      [{ targets: { groups: Array.from({ length: 101 }, (_, i) => `g${i}`) } }, 'targets.groups: must have at most 100 groups'],
      [{ targets: { labelSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['x'.repeat(64)] }] } } }, 'targets.labelSelector.matchExpressions[0].values: each value must be at most 63 characters (a label value)'],
      [{ annotations: { a: big, b: big } }, 'annotations: keys and values together must be at most 256 KiB, as Kubernetes allows'],
      [{ registryCredentials: { username: 'u', password: 'p'.repeat(16385) } }, 'registryCredentials.password: must be at most 16 KiB'],
    ];
    for (const [body, problem] of cases) {
      const res = await hub.call('PATCH', '/api/v1/projects/edge', { body });
      expect([res.status, res.body.problems]).toEqual([400, [problem]]);
    }
    expect((await hub.call('PATCH', '/api/v1/projects/edge', { body: { annotations: { a: big } } })).status).toBe(200);
    // a merge patch adds to what is there: the limit holds for the result
    const merged = await hub.call('PATCH', '/api/v1/projects/edge', { body: { annotations: { b: big } } });
    expect([merged.status, merged.body.problems]).toEqual([400, ['annotations: keys and values together must be at most 256 KiB, as Kubernetes allows, after the merge']]);
    const doc = (await hub.call('GET', '/api/docs-json', { token: null })).body;
    expect(doc.components.schemas.TargetsDto.properties.names.maxItems).toBe(1000);
    expect(doc.components.schemas.BasicRegistryCredentialsDto.properties.password.maxLength).toBe(16384);
  });

  it('checks the token before reading the body: 401 for a malformed, huge or non-JSON body without a valid token', async () => {
    const noToken = (body: string, type: string, token?: string) =>
      fetch(`${hub.url}/api/v1/projects`, { method: 'POST', headers: { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) }, body });
    for (const token of [undefined, 'flt_not-a-real-token']) {
      for (const [body, type] of [['{"name":', 'application/json'], [JSON.stringify({ name: 'x'.repeat(2 << 20) }), 'application/json'], ['name=x', 'text/plain']]) {
        const res = await noToken(body, type, token);
        expect([res.status, res.headers.get('www-authenticate')]).toEqual([401, 'Bearer']);
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }
    }
    // with a valid token the same bodies get their own answers
    expect((await noToken('{"name":', 'application/json', hub.adminToken)).status).toBe(400);
    expect((await noToken('name=x', 'text/plain', hub.adminToken)).status).toBe(415);
  });

  it('takes an empty query value as absent', async () => {
    expect((await hub.call('GET', '/api/v1/clusters?group=&mode=&labelSelector=&limit=')).status).toBe(200);
    expect((await hub.call('GET', '/api/v1/projects?suspended=')).body.items.map((p: { name: string }) => p.name)).toEqual(['edge']);
    expect((await hub.call('GET', '/api/v1/clusters?mode=bogus')).status).toBe(400);
  });

  it('answers 405 with Allow for a method a known path does not declare', async () => {
    const cases: Array<[string, string, string]> = [
      ['PUT', '/api/v1/clusters', 'GET, HEAD, POST'],
      ['POST', '/api/v1/clusters/c', 'DELETE, GET, HEAD, PATCH'],
      ['DELETE', '/api/v1/tokens', 'GET, HEAD, POST'],
      ['POST', '/healthz', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await fetch(`${hub.url}${path}`, { method, headers: { authorization: `Bearer ${hub.adminToken}` } });
      expect([method, path, res.status, res.headers.get('allow')]).toEqual([method, path, 405, allow]);
    }
    expect((await hub.call('GET', '/api/v1/nowhere')).status).toBe(404);
    expect((await fetch(`${hub.url}/api/v1/clusters`, { method: 'HEAD', headers: { authorization: `Bearer ${hub.adminToken}` } })).status).toBe(200);
  });
});

