import { DATABASE_KINDS, startTestHub, type TestHub } from '../../test/hub';
import { kubeconfigYaml } from '../../test/kubeconfig';

// Nothing listens on port 1: registration must still succeed and say why the cluster is unreachable.
const DEAD = 'https://127.0.0.1:1';
const SECRET = 'cluster-secret-token-value-1234567890';

describe.each(DATABASE_KINDS)('clusters API on %s', (_label, kind) => {
  let hub: TestHub;
  let operator: string;
  let viewer: string;
  beforeAll(async () => {
    hub = await startTestHub(kind);
    operator = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'op', role: 'operator' } })).body.token;
    viewer = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'view', role: 'viewer' } })).body.token;
  });
  afterAll(() => hub?.close());

  it('registers an unreachable push cluster, saying why, and never echoes its token', async () => {
    const res = await hub.call('POST', '/api/v1/clusters', {
      token: operator,
      body: { name: 'dead-1', group: 'staging', labels: { env: 'stage' }, mode: 'push', endpoint: { server: DEAD }, credentials: { token: SECRET } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'dead-1',
      group: 'staging',
      labels: { env: 'stage' },
      mode: 'push',
      endpoint: { server: DEAD, insecureSkipTLSVerify: false, hasCaData: false },
      credentials: { kind: 'token', fingerprint: expect.stringMatching(/^hmac:[0-9a-f]{16}$/) },
      status: { reachable: false, version: null, lastChecked: expect.any(String), error: expect.stringContaining('ECONNREFUSED') },
      targets: 0,
    });
    expect(res.text).not.toContain(SECRET);
    const got = await hub.call('GET', '/api/v1/clusters/dead-1', { token: viewer });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    expect(got.text).not.toContain(SECRET);
  });

  it('registers an agent cluster without endpoint or credentials', async () => {
    const res = await hub.call('POST', '/api/v1/clusters', { body: { name: 'edge-1', mode: 'agent', labels: { env: 'prod' } } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'edge-1', group: 'default', mode: 'agent', endpoint: null, credentials: null, status: { reachable: null } });
  });

  it('takes endpoint and credentials from a kubeconfig', async () => {
    const kubeconfig = kubeconfigYaml({ server: DEAD, token: SECRET, context: 'ctx-a' });
    const res = await hub.call('POST', '/api/v1/clusters', { body: { name: 'from-kc', mode: 'push', credentials: { kubeconfig, context: 'ctx-a' } } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ endpoint: { server: DEAD }, credentials: { kind: 'kubeconfig' } });
    expect(res.text).not.toContain(SECRET);
    // a rotated kubeconfig brings its own server
    const moved = kubeconfigYaml({ server: 'https://127.0.0.1:2', token: SECRET });
    const patched = await hub.call('PATCH', '/api/v1/clusters/from-kc', { body: { credentials: { kubeconfig: moved } } });
    expect(patched.status).toBe(200);
    expect(patched.body.endpoint.server).toBe('https://127.0.0.1:2');
    expect(patched.body.credentials.fingerprint).not.toBe(res.body.credentials.fingerprint);
  });

  it('lists every problem of a bad registration in one 400', async () => {
    const res = await hub.call('POST', '/api/v1/clusters', {
      body: {
        name: 'Not_A_Label',
        group: null,
        labels: { 'bad key!': 'x', ok: 'not ok!' },
        mode: 'pull',
        endpoint: { server: 'ftp://x', insecureSkipTLSVerify: 'yes' },
        credentials: { token: 't', clientKeyData: 'k' },
        color: 'blue',
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^name: must be a DNS label/),
        'group: must not be null',
        expect.stringMatching(/^labels: key "bad key!"/),
        'mode: must be push or agent',
        'endpoint.server: must be an http(s) URL',
        'endpoint.insecureSkipTLSVerify: must be true or false',
        'color: unknown field',
        'credentials: give exactly one of token, clientCertificateData with clientKeyData, or kubeconfig',
      ]),
    );
  });

  it('explains what push and agent clusters need', async () => {
    const push = await hub.call('POST', '/api/v1/clusters', { body: { name: 'p', mode: 'push' } });
    expect(push.status).toBe(400);
    expect(push.body.problems).toEqual(['credentials: required for push clusters', 'endpoint: required for push clusters (or give a kubeconfig)']);
    const agent = await hub.call('POST', '/api/v1/clusters', { body: { name: 'a', mode: 'agent', endpoint: { server: DEAD }, credentials: { token: 'x' } } });
    expect(agent.status).toBe(400);
    expect(agent.body.problems).toHaveLength(2);
    const kc = await hub.call('POST', '/api/v1/clusters', { body: { name: 'k', mode: 'push', credentials: { kubeconfig: 'apiVersion: v1\nusers: []' } } });
    expect(kc.status).toBe(400);
    expect(kc.body.problems).toEqual(['credentials.kubeconfig: no context given and no current-context set']);
    const badCert = await hub.call('POST', '/api/v1/clusters', {
      body: { name: 'c', mode: 'push', endpoint: { server: DEAD, caData: 'nope' }, credentials: { clientCertificateData: 'x', clientKeyData: 'y' } },
    });
    expect(badCert.status).toBe(400);
    expect(badCert.body.problems).toHaveLength(3);
  });

  it('answers 409 on a duplicate name and 404 on an unknown one', async () => {
    const dup = await hub.call('POST', '/api/v1/clusters', { body: { name: 'edge-1', mode: 'agent' } });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe('cluster "edge-1" already exists');
    expect((await hub.call('GET', '/api/v1/clusters/nope')).status).toBe(404);
    expect((await hub.call('PATCH', '/api/v1/clusters/nope', { body: {} })).status).toBe(404);
    expect((await hub.call('DELETE', '/api/v1/clusters/nope')).status).toBe(404);
  });

  it('filters and pages the list by group, mode and labels', async () => {
    const all = await hub.call('GET', '/api/v1/clusters', { token: viewer });
    expect(all.body.items.map((c: { name: string }) => c.name)).toEqual(['dead-1', 'edge-1', 'from-kc']);
    expect(all.body.total).toBe(3);
    const byGroup = await hub.call('GET', '/api/v1/clusters?group=staging');
    expect(byGroup.body.items.map((c: { name: string }) => c.name)).toEqual(['dead-1']);
    const byMode = await hub.call('GET', '/api/v1/clusters?mode=agent');
    expect(byMode.body.items.map((c: { name: string }) => c.name)).toEqual(['edge-1']);
    const sel = await hub.call('GET', `/api/v1/clusters?labelSelector=${encodeURIComponent('env in (prod,stage),!gpu')}`);
    expect(sel.body.items.map((c: { name: string }) => c.name)).toEqual(['dead-1', 'edge-1']);
    const notProd = await hub.call('GET', `/api/v1/clusters?labelSelector=${encodeURIComponent('env!=prod')}`);
    expect(notProd.body.items.map((c: { name: string }) => c.name)).toEqual(['dead-1', 'from-kc']);
    const page = await hub.call('GET', '/api/v1/clusters?limit=1&offset=1');
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1, items: [{ name: 'edge-1' }] });
    const bad = await hub.call('GET', '/api/v1/clusters?labelSelector=a%20b&mode=x');
    expect(bad.status).toBe(400);
    expect(bad.body.problems.sort()).toEqual(['labelSelector: at character 3: expected =, ==, !=, in, notin or "," after key "a", found "b"', 'mode: must be push or agent']);
    const badSel = await hub.call('GET', '/api/v1/clusters?labelSelector=a%20b');
    expect(badSel.status).toBe(400);
    expect(badSel.body.problems).toEqual(['labelSelector: at character 3: expected =, ==, !=, in, notin or "," after key "a", found "b"']);
  });

  it('updates labels and group, and rotates credentials (new fingerprint, secret never shown)', async () => {
    const before = (await hub.call('GET', '/api/v1/clusters/dead-1')).body;
    const rotated = 'rotated-secret-token-0987654321';
    const res = await hub.call('PATCH', '/api/v1/clusters/dead-1', { token: operator, body: { labels: { env: 'prod' }, group: 'production', credentials: { token: rotated } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ labels: { env: 'prod' }, group: 'production', credentials: { kind: 'token' } });
    expect(res.body.credentials.fingerprint).not.toBe(before.credentials.fingerprint);
    expect(res.text).not.toContain(rotated);
    expect((await hub.call('PATCH', '/api/v1/clusters/dead-1', { token: viewer, body: { group: 'x' } })).status).toBe(403);
    // an agent cluster cannot take credentials: its state forbids it, the request itself is well formed
    const agent = await hub.call('PATCH', '/api/v1/clusters/edge-1', { body: { credentials: { token: 'x' } } });
    expect(agent.status).toBe(409);
    expect(agent.body.message).toMatch(/agent cluster/);
  });

  it('deletes a cluster that no Project targets', async () => {
    expect((await hub.call('DELETE', '/api/v1/clusters/from-kc', { token: viewer })).status).toBe(403);
    expect((await hub.call('DELETE', '/api/v1/clusters/from-kc', { token: operator })).status).toBe(204);
    expect((await hub.call('GET', '/api/v1/clusters/from-kc')).status).toBe(404);
  });

  it('never returned or logged a credential, in any response or log line of this suite', () => {
    expect(hub.responses.length).toBeGreaterThan(20);
    for (const text of [...hub.responses, ...hub.logs]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('rotated-secret-token');
    }
    expect(hub.logs.join('\n')).toContain('"cluster":"dead-1"');
  });
});
