import { startTestHub, type TestHub } from '../test/hub';

// Whatever a client sends, the answer is never a 500: every odd value of every
// field, at the top level and one level down, on every write route.
const ODD_VALUES: unknown[] = [null, 0, -1, 1.5, true, '', ' ', 'x'.repeat(300), 'ÜñÎçødé💥', [], ['a'], {}, { a: 1 }];

const VALID: Record<string, Record<string, unknown>> = {
  '/api/v1/clusters': {
    name: 'ok',
    group: 'g',
    labels: { a: 'b' },
    mode: 'push',
    endpoint: { server: 'https://127.0.0.1:1', caData: 'x', insecureSkipTLSVerify: true },
    credentials: { token: 't' },
  },
  '/api/v1/projects': {
    name: 'ok',
    namespace: 'ns',
    source: { repository: 'oci://r.example/a/b', tag: 't', path: 'p.cue' },
    serviceAccountName: 'sa',
    targets: { names: ['a'], groups: ['g'], labelSelector: { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'k', operator: 'Exists' }] } },
    rollout: { groups: ['g'] },
    interval: '1m',
    suspend: false,
    annotations: { a: 'b' },
    registryCredentials: { username: 'u', password: 'p' },
    cdeventsSink: 'http://127.0.0.1:1/events',
  },
  '/api/v1/tokens': { name: 'ok', role: 'viewer' },
};

function variants(valid: Record<string, unknown>): Array<[string, Record<string, unknown>]> {
  const out: Array<[string, Record<string, unknown>]> = [];
  for (const [field, value] of Object.entries(valid)) {
    for (const odd of ODD_VALUES) out.push([`${field}=${JSON.stringify(odd)}`, { ...valid, [field]: odd }]);
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const sub of Object.keys(value)) {
        for (const odd of ODD_VALUES) out.push([`${field}.${sub}=${JSON.stringify(odd)}`, { ...valid, [field]: { ...value, [sub]: odd } }]);
      }
    }
  }
  return out;
}

describe('bad input never causes a 500', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub('postgres');
    await hub.call('POST', '/api/v1/clusters', { body: { name: 'c', mode: 'agent' } });
    await hub.call('POST', '/api/v1/projects', { body: VALID['/api/v1/projects'] });
  });
  afterAll(() => hub?.close());

  it.each(Object.keys(VALID))('POST %s', async (path) => {
    const failures: string[] = [];
    for (const [what, body] of variants(VALID[path])) {
      const res = await hub.call('POST', path, { body: { ...body, name: `v${Math.random().toString(36).slice(2, 10)}` } });
      if (res.status >= 500) failures.push(`${what}: ${res.status} ${res.text}`);
      if (res.status === 400 && !(res.body?.problems?.length > 0)) failures.push(`${what}: 400 without problems`);
    }
    expect(failures).toEqual([]);
  });

  it.each([
    ['/api/v1/clusters/c', { group: 'g', labels: { a: 'b' } }],
    ['/api/v1/projects/ok', { ...VALID['/api/v1/projects'], name: undefined }],
  ])('PATCH %s', async (path, valid) => {
    const failures: string[] = [];
    for (const [what, body] of variants(valid as Record<string, unknown>)) {
      const res = await hub.call('PATCH', path, { body });
      if (res.status >= 500) failures.push(`${what}: ${res.status} ${res.text}`);
    }
    expect(failures).toEqual([]);
  });

  it.each(['/api/v1/clusters', '/api/v1/projects', '/api/v1/tokens', '/api/v1/projects/ok/targets', '/api/v1/projects/ok/events'])('GET %s with odd query strings', async (path) => {
    for (const q of ['limit=abc', 'limit=1&limit=2', 'offset=-5', 'limit=1e9', 'group[]=x', 'labelSelector=((', 'phase[a]=b', 'mode=', 'x=1']) {
      const res = await hub.call('GET', `${path}?${q}`);
      expect([q, res.status < 500]).toEqual([q, true]);
    }
  });
});

describe('nested values of the wrong shape', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub('postgres');
  });
  afterAll(() => hub?.close());

  it('are named once each', async () => {
    const res = await hub.call('POST', '/api/v1/projects', {
      body: { name: 'p', namespace: 'n', source: 'oci://x/y', targets: { labelSelector: { matchExpressions: [[], 3] } } },
    });
    expect(res.status).toBe(400);
    expect(res.body.problems).toEqual([
      'source: must be an object',
      'targets.labelSelector.matchExpressions: must be a list of objects',
    ]);
  });
});
