import { startTestHub, type TestHub } from '../../test/hub';
import { ROLES, type Role } from './roles';

// Every API route with the least role it needs. Guards run before validation and
// lookups, so routes are called on names that do not exist: an allowed call ends
// in 400/404, never in 401/403, and changes nothing.
const ROUTES: Array<[string, string, Role]> = [
  ['GET', '/api/v1/clusters', 'viewer'],
  ['GET', '/api/v1/clusters/none', 'viewer'],
  ['POST', '/api/v1/clusters', 'operator'],
  ['PATCH', '/api/v1/clusters/none', 'operator'],
  ['POST', '/api/v1/clusters/none/check', 'operator'],
  ['DELETE', '/api/v1/clusters/none', 'operator'],
  ['GET', '/api/v1/clusters/none/agent', 'viewer'],
  // it issues a bootstrap token: more than a read
  ['GET', '/api/v1/clusters/none/agent/manifest', 'operator'],
  ['POST', '/api/v1/clusters/none/agent/reset', 'operator'],
  // the image it sends is the hub's configured one: an operator may ask, and choose nothing
  ['POST', '/api/v1/clusters/none/agent/upgrade', 'operator'],
  ['GET', '/api/v1/projects', 'viewer'],
  ['GET', '/api/v1/projects/none', 'viewer'],
  ['GET', '/api/v1/projects/none/targets', 'viewer'],
  ['GET', '/api/v1/projects/none/targets/none', 'viewer'],
  ['GET', '/api/v1/projects/none/targets/none/runs', 'viewer'],
  ['GET', '/api/v1/projects/none/events', 'viewer'],
  ['GET', '/api/v1/projects/none/deliveries', 'viewer'],
  ['GET', '/api/v1/fleet/summary', 'viewer'],
  ['GET', '/api/v1/fleet/matrix', 'viewer'],
  ['GET', '/api/v1/session', 'viewer'],
  ['POST', '/api/v1/projects', 'operator'],
  ['PATCH', '/api/v1/projects/none', 'operator'],
  ['DELETE', '/api/v1/projects/none', 'operator'],
  ['POST', '/api/v1/projects/none/reconcile', 'operator'],
  ['POST', '/api/v1/projects/none/suspend', 'operator'],
  ['POST', '/api/v1/projects/none/resume', 'operator'],
  ['POST', '/api/v1/projects/none/diff', 'operator'],
  ['GET', '/api/v1/projects/none/rollout', 'viewer'],
  ['POST', '/api/v1/projects/none/rollout/approve', 'operator'],
  ['POST', '/api/v1/projects/none/rollout/hold', 'operator'],
  ['POST', '/api/v1/projects/none/rollout/retry', 'operator'],
  ['POST', '/api/v1/projects/none/rollout/rollback', 'operator'],
  ['GET', '/api/v1/tokens', 'admin'],
  ['POST', '/api/v1/tokens', 'admin'],
  ['DELETE', '/api/v1/tokens/none', 'admin'],
  ['POST', '/api/v1/credentials/rotate', 'admin'],
  ['GET', '/api/v1/audit', 'admin'],
  ['GET', '/api/v1/tenants', 'viewer'],
  ['GET', '/api/v1/tenants/none', 'viewer'],
  ['POST', '/api/v1/tenants', 'admin'],
  ['PATCH', '/api/v1/tenants/none', 'admin'],
  ['DELETE', '/api/v1/tenants/none', 'admin'],
  ['GET', '/api/v1/oidc-bindings', 'admin'],
  ['POST', '/api/v1/oidc-bindings', 'admin'],
  ['DELETE', '/api/v1/oidc-bindings/none', 'admin'],
];

// Asked before anyone holds a token (where to sign in): open to all, a secret to none.
const PUBLIC_ROUTES: Array<[string, string]> = [['GET', '/api/v1/auth/oidc']];

describe('authorization per role on every route', () => {
  let hub: TestHub;
  const tokens: Partial<Record<Role, string>> = {};
  beforeAll(async () => {
    hub = await startTestHub('postgres');
    tokens.admin = hub.adminToken;
    for (const role of ['viewer', 'operator'] as const) {
      tokens[role] = (await hub.call('POST', '/api/v1/tokens', { body: { name: role, role } })).body.token;
    }
  });
  afterAll(() => hub?.close());

  it.each(ROUTES)('%s %s needs %s', async (method, path, needed) => {
    const body = method === 'GET' || method === 'DELETE' ? undefined : {};
    const outcome: Record<string, number> = {};
    outcome.anonymous = (await hub.call(method, path, { token: null, body })).status;
    for (const role of ROLES) outcome[role] = (await hub.call(method, path, { token: tokens[role]!, body })).status;
    const expected: Record<string, string> = { anonymous: '401' };
    for (const role of ROLES) expected[role] = ROLES.indexOf(role) >= ROLES.indexOf(needed) ? 'allowed' : '403';
    const seen = Object.fromEntries(Object.entries(outcome).map(([who, s]) => [who, s === 401 || s === 403 ? String(s) : 'allowed']));
    expect(seen).toEqual(expected);
    for (const s of Object.values(outcome)) expect(s).toBeLessThan(500);
  });

  it.each(PUBLIC_ROUTES)('%s %s is open to anyone', async (method, path) => {
    for (const token of [null, tokens.viewer!, tokens.admin!]) {
      const status = (await hub.call(method, path, { token })).status;
      expect(status === 401 || status === 403 || status >= 500 ? status : 'allowed').toBe('allowed');
    }
  });

  it('covers every API route in the OpenAPI document', async () => {
    const doc = (await hub.call('GET', '/api/docs-json', { token: null })).body as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{[^}]+\}/g, 'none')}`));
    expect([...ROUTES, ...PUBLIC_ROUTES].map(([m, p]) => `${m} ${p}`).sort()).toEqual(documented.sort());
  });

  it('changed nothing while probing', async () => {
    expect((await hub.call('GET', '/api/v1/clusters')).body.total).toBe(0);
    expect((await hub.call('GET', '/api/v1/projects')).body.total).toBe(0);
    expect((await hub.call('GET', '/api/v1/tokens')).body.total).toBe(3);
  });

  it('counts the requests in /metrics by route pattern, refused ones included', async () => {
    const metrics = (await hub.call('GET', '/metrics')).text;
    expect(metrics).toContain('flotilla_hub_http_requests_total{method="GET",route="/api/v1/projects/:name/targets/:cluster/runs",status="404"}');
    expect(metrics).toContain('flotilla_hub_http_requests_total{method="DELETE",route="/api/v1/tokens/:id",status="403"}');
    expect(metrics).not.toContain('route="/api/v1/clusters/none"');
  });
});
