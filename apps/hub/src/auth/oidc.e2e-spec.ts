import { readFileSync } from 'node:fs';
import { createServer as createTlsServer } from 'node:https';
import { createServer, type Server, type Socket } from 'node:net';
import { decodeJwt } from 'jose';
import { OIDC_TEST_USERS, startOidcProvider, type TestOidcProvider } from '../../../../test/harness/oidc-provider';
import { writeKubePki } from '../../../../test/harness/kube-pki';
import { testDir } from '../../../../test/harness/temp-dirs';
import { eventually } from '../../../../test/e2e/support/eventually';
import { FixedClock } from '../common/clock';
import { FleetStream } from '../fleet/fleet-stream';
import type { OidcConfig } from '../config/oidc-config';
import { launch, startTestHub, type TestHub } from '../../test/hub';
import { openStream } from '../../test/live-stream';
import { createTenants } from '../../test/tenants';

function oidcConfig(provider: Pick<TestOidcProvider, 'issuer' | 'caFile'>): OidcConfig {
  return { issuer: provider.issuer, clientId: 'flotilla', audience: 'flotilla', caFile: provider.caFile, groupsClaim: 'groups' };
}

describe('bearer tokens from the OpenID provider (real provider, real PostgreSQL)', () => {
  const clock = new FixedClock(new Date());
  let provider: TestOidcProvider;
  let otherProvider: TestOidcProvider;
  let hub: TestHub;
  const bindingIds: Record<string, string> = {};

  beforeAll(async () => {
    const dir = testDir('flotilla-oidc-hub-');
    [provider, otherProvider] = await Promise.all([startOidcProvider(dir, 'idp'), startOidcProvider(dir, 'other-idp')]);
    hub = await startTestHub('postgres', { oidc: oidcConfig(provider) }, { clock });
    await createTenants(hub, ['team-a', 'team-b']);
    for (const [key, body] of Object.entries({
      teamA: { claim: 'group', value: 'team-a', tenant: 'team-a', role: 'operator' },
      teamAViewB: { claim: 'group', value: 'team-a', tenant: 'team-b', role: 'viewer' },
      teamB: { claim: 'group', value: 'team-b', tenant: 'team-b', role: 'viewer' },
      admins: { claim: 'group', value: 'platform-admins', role: 'admin' },
    })) {
      const res = await hub.call('POST', '/api/v1/oidc-bindings', { body });
      expect(res.status).toBe(201);
      bindingIds[key] = res.body.id;
    }
  }, 120_000);
  afterAll(async () => {
    await hub?.close();
    await Promise.all([provider?.stop(), otherProvider?.stop()]);
  });

  it('tells anyone, without a token, where to sign in', async () => {
    const res = await hub.call('GET', '/api/v1/auth/oidc', { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ issuer: provider.issuer, clientId: 'flotilla', audience: 'flotilla' });
  });

  it("accepts a user's provider token with the role their groups give", async () => {
    const alice = await provider.tokensFor(OIDC_TEST_USERS.alice);
    const session = await hub.call('GET', '/api/v1/session', { token: alice.access_token });
    expect(session.status).toBe(200);
    expect(session.body).toEqual({ name: 'alice@example.test', role: 'operator', tenants: { 'team-a': 'operator', 'team-b': 'viewer' }, expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), singleSignOn: true });
    // the tenants her groups give are all she reaches: a Project in team-a she may create, one in default not
    const project = (name: string, tenant: string) => ({ name, tenant, namespace: tenant, source: { repository: `oci://127.0.0.1:5000/${tenant}/app` } });
    expect((await hub.call('POST', '/api/v1/projects', { token: alice.access_token, body: project('alice-app', 'team-a') })).status).toBe(201);
    expect((await hub.call('POST', '/api/v1/projects', { token: alice.access_token, body: project('alice-b', 'team-b') })).status).toBe(403);
    expect((await hub.call('POST', '/api/v1/projects', { body: project('platform', 'default') })).status).toBe(201);
    const seen = (await hub.call('GET', '/api/v1/projects', { token: alice.access_token })).body;
    expect(seen.items.map((p: { name: string }) => p.name)).toEqual(['alice-app']);
    // an operator, not an admin
    expect((await hub.call('GET', '/api/v1/oidc-bindings', { token: alice.access_token })).status).toBe(403);

    const carol = await provider.tokensFor(OIDC_TEST_USERS.carol);
    expect((await hub.call('GET', '/api/v1/session', { token: carol.access_token })).body).toEqual({ name: 'carol@example.test', role: 'admin', expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), singleSignOn: true });
    const bindings = await hub.call('GET', '/api/v1/oidc-bindings', { token: carol.access_token });
    expect(bindings.status).toBe(200);
    expect(bindings.body.total).toBe(4);

    const bob = await provider.tokensFor(OIDC_TEST_USERS.bob);
    expect((await hub.call('GET', '/api/v1/session', { token: bob.access_token })).body).toEqual({ name: 'bob@example.test', role: 'viewer', tenants: { 'team-b': 'viewer' }, expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), singleSignOn: true });
    expect((await hub.call('POST', '/api/v1/oidc-bindings', { token: bob.access_token, body: { claim: 'subject', value: 'bob', role: 'admin' } })).status).toBe(403);
  });

  it('refuses a token for another audience, from another issuer, with a bad signature, or expired (401)', async () => {
    const wrongAudience = await provider.tokensFor(OIDC_TEST_USERS.alice, { resource: provider.resources.other });
    expect(decodeJwt(wrongAudience.access_token).aud).toBe('other-api');
    const res = await hub.call('GET', '/api/v1/session', { token: wrongAudience.access_token });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/audience is not "flotilla"/);

    const foreign = await otherProvider.tokensFor(OIDC_TEST_USERS.carol);
    expect(decodeJwt(foreign.access_token)).toMatchObject({ aud: 'flotilla', groups: ['platform-admins'] });
    expect((await hub.call('GET', '/api/v1/session', { token: foreign.access_token })).status).toBe(401);

    // the other provider's signature under this provider's issuer name
    const [, payload] = (await provider.tokensFor(OIDC_TEST_USERS.alice)).access_token.split('.');
    const [header, , signature] = foreign.access_token.split('.');
    const forged = await hub.call('GET', '/api/v1/session', { token: `${header}.${payload}.${signature}` });
    expect(forged.status).toBe(401);

    const shortLived = await provider.tokensFor(OIDC_TEST_USERS.carol);
    const exp = decodeJwt(shortLived.access_token).exp! * 1000;
    expect((await hub.call('GET', '/api/v1/session', { token: shortLived.access_token })).status).toBe(200);
    const before = clock.now();
    clock.set(new Date(exp + 1000));
    try {
      const expired = await hub.call('GET', '/api/v1/session', { token: shortLived.access_token });
      expect(expired.status).toBe(401);
      expect(expired.body.message).toMatch(/expired/);
    } finally {
      clock.set(before);
    }
  });

  it('refuses a signed-in user no binding names (403), saying so', async () => {
    const dave = await provider.tokensFor(OIDC_TEST_USERS.dave);
    const res = await hub.call('GET', '/api/v1/session', { token: dave.access_token });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/"dave@example.test" signed in, but neither subject "dave" nor groups \[\] have a binding/);
  });

  it('validates bindings at the edge and changes nothing on bad input', async () => {
    const bad = await hub.call('POST', '/api/v1/oidc-bindings', { body: { claim: 'email', value: '', tenant: 'Not A Label', role: 'owner' } });
    expect(bad.status).toBe(400);
    expect(bad.body.problems).toEqual(expect.arrayContaining([expect.stringMatching(/^claim/), expect.stringMatching(/^value/), expect.stringMatching(/^tenant/), expect.stringMatching(/^role/)]));
    const tenantAdmin = await hub.call('POST', '/api/v1/oidc-bindings', { body: { claim: 'group', value: 'team-a', tenant: 'team-a', role: 'admin' } });
    expect(tenantAdmin.status).toBe(400);
    expect(tenantAdmin.body.message).toMatch(/^role: admin is only ever global/);
    // one (claim, value) binds once per tenant, and once globally, whatever the role
    const globalAgain = await hub.call('POST', '/api/v1/oidc-bindings', { body: { claim: 'group', value: 'platform-admins', role: 'viewer', tenant: null } });
    expect(globalAgain.status).toBe(409);
    expect(globalAgain.body.message).toMatch(/group "platform-admins" globally already exists/);
    const again = await hub.call('POST', '/api/v1/oidc-bindings', { body: { claim: 'subject', value: 'auditor', role: 'viewer' } });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ claim: 'subject', value: 'auditor', tenant: null, role: 'viewer' });
    expect((await hub.call('DELETE', `/api/v1/oidc-bindings/${again.body.id}`)).status).toBe(200);
    expect((await hub.call('DELETE', `/api/v1/oidc-bindings/${again.body.id}`)).status).toBe(404);
    expect((await hub.call('DELETE', '/api/v1/oidc-bindings/not-a-uuid')).status).toBe(404);
    expect((await hub.call('GET', '/api/v1/oidc-bindings')).body.total).toBe(4);
  });

  it('ends access with the next request once the binding is deleted, on every replica', async () => {
    const replica = await launch({ ...hub.config, port: 0 }, { clock });
    try {
      const bob = await provider.tokensFor(OIDC_TEST_USERS.bob);
      // both replicas have the binding in their cache now
      expect((await hub.call('GET', '/api/v1/session', { token: bob.access_token })).status).toBe(200);
      expect((await replica.call('GET', '/api/v1/session', { token: bob.access_token })).status).toBe(200);

      expect((await hub.call('DELETE', `/api/v1/oidc-bindings/${bindingIds.teamB}`)).status).toBe(200);
      const refused = await hub.call('GET', '/api/v1/session', { token: bob.access_token });
      expect(refused.status).toBe(403);
      // the other replica hears the notice (its clock stands still: its cache would never expire by age)
      await eventually('the replica to refuse bob', async () => ((await replica.call('GET', '/api/v1/session', { token: bob.access_token })).status === 403 ? true : undefined), { timeoutMs: 10_000 });
      // alice keeps what her own bindings give
      const alice = await provider.tokensFor(OIDC_TEST_USERS.alice);
      expect((await replica.call('GET', '/api/v1/session', { token: alice.access_token })).body.role).toBe('operator');
    } finally {
      await replica.stop();
    }
  });
});


describe("a signed-in person's live stream", () => {
  const clock = new FixedClock(new Date());
  let provider: TestOidcProvider;
  let hub: TestHub;
  beforeAll(async () => {
    provider = await startOidcProvider(testDir('flotilla-oidc-stream-'), 'idp');
    hub = await startTestHub('postgres', { oidc: oidcConfig(provider) }, { clock });
    await createTenants(hub, ['team-a']);
  }, 120_000);
  afterAll(async () => {
    await hub?.close();
    await provider?.stop();
  });

  it('ends when a binding it relied on is removed, and when the token expires', async () => {
    const bind = async (body: object) => (await hub.call('POST', '/api/v1/oidc-bindings', { body })).body.id as string;
    const operator = await bind({ claim: 'group', value: 'team-a', tenant: 'team-a', role: 'operator' });
    await bind({ claim: 'subject', value: 'carol', role: 'viewer' });
    const alice = await provider.tokensFor(OIDC_TEST_USERS.alice);
    const carol = await provider.tokensFor(OIDC_TEST_USERS.carol);
    const aliceStream = await openStream(hub.url, alice.access_token);
    const carolStream = await openStream(hub.url, carol.access_token);

    expect((await hub.call('DELETE', `/api/v1/oidc-bindings/${operator}`)).status).toBe(200);
    await hub.app.get(FleetStream).tick();
    expect(await aliceStream.ended).toContain('event: unauthorized');
    expect(hub.app.get(FleetStream).size).toBe(1);
    expect(carolStream.text()).not.toContain('unauthorized');

    clock.set(new Date(decodeJwt(carol.access_token).exp! * 1000));
    await hub.app.get(FleetStream).tick();
    expect(await carolStream.ended).toContain('event: unauthorized\ndata: {"reason":"token expired"}');
  });
});

describe('a hub whose identity provider does not answer', () => {
  let blackhole: Server;
  const sockets: Socket[] = [];
  let hub: TestHub;

  beforeAll(async () => {
    // accepts connections and never says a word: the slowest provider there is
    blackhole = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => blackhole.listen(0, '127.0.0.1', r));
    const port = (blackhole.address() as { port: number }).port;
    const dir = testDir('flotilla-oidc-down-');
    const ca = await startOidcProvider(dir, 'ca-only');
    await ca.stop();
    hub = await startTestHub('postgres', { oidc: oidcConfig({ issuer: `https://127.0.0.1:${port}`, caFile: ca.caFile }) });
  }, 120_000);
  afterAll(async () => {
    await hub?.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => blackhole?.close(r));
  });

  it('still answers static tokens at once, and provider tokens with 503 within the deadline', async () => {
    const issuer = hub.config.oidc!.issuer;
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const jwt = `${part({ alg: 'RS256', kid: 'k' })}.${part({ iss: issuer, sub: 'alice', aud: 'flotilla', exp: Math.floor(Date.now() / 1000) + 300 })}.${part({ sig: 1 })}`;
    let jwtAnswered = false;
    const pending = hub.call('GET', '/api/v1/session', { token: jwt }).finally(() => (jwtAnswered = true));
    await eventually('the hub to be asking the provider', async () => (sockets.length > 0 ? true : undefined), { timeoutMs: 10_000 });
    const admin = await hub.call('GET', '/api/v1/session');
    expect(admin.status).toBe(200);
    expect(admin.body.role).toBe('admin');
    expect(jwtAnswered).toBe(false);
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/identity provider https:\/\/127\.0\.0\.1:\d+ is not reachable/);
  });
});

describe('a hub whose identity provider answers without end', () => {
  let hostile: ReturnType<typeof createTlsServer>;
  let hub: TestHub;
  /** bytes the provider got to write before the hub hung up */
  let written = 0;
  let hungUp: Promise<void>;

  beforeAll(async () => {
    const pki = await writeKubePki(testDir('flotilla-oidc-huge-'));
    let closed: () => void;
    hungUp = new Promise((r) => (closed = r));
    // a discovery document that never ends, without a Content-Length to refuse early
    hostile = createTlsServer({ cert: readFileSync(pki.servingCert), key: readFileSync(pki.servingKey) }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = () => {
        while (!res.destroyed && written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
      };
      res.on('close', () => closed());
      res.write('{"issuer": "x", "padding": "');
      more();
    });
    await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
    const port = (hostile.address() as { port: number }).port;
    hub = await startTestHub('postgres', { oidc: oidcConfig({ issuer: `https://127.0.0.1:${port}`, caFile: pki.caCert }) });
  }, 120_000);
  afterAll(async () => {
    await hub?.close();
    hostile?.closeAllConnections();
    await new Promise((r) => hostile?.close(r));
  });

  it('stops reading its answer past the bound and says so with 503', async () => {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const jwt = `${part({ alg: 'RS256', kid: 'k' })}.${part({ iss: hub.config.oidc!.issuer, sub: 'alice', aud: 'flotilla', exp: Math.floor(Date.now() / 1000) + 300 })}.${part({ sig: 1 })}`;
    const res = await hub.call('GET', '/api/v1/session', { token: jwt });
    expect(res.status).toBe(503);
    expect(res.body.message).toContain('is larger than 524288 bytes');
    await hungUp;
    // the hub hung up long before the provider ran out of padding
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });
});
