import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { OIDC_TEST_USERS, startOidcProvider, type OidcTestUser, type TestOidcProvider } from '../../../test/harness/oidc-provider';
import { testDir } from '../../../test/harness/temp-dirs';
import { startTestHub, type TestHub } from '../../hub/test/hub';
import { collect, CliUser, expectNoStack, waitForOutput } from '../test/run-cli';
import { createTenants } from '../../hub/test/tenants';

// `flotilla login --oidc`: the compiled CLI against a hub whose single sign-on
// is a real OpenID provider; the test plays the person at the browser by
// entering the code the CLI printed and signing in through the provider's form.

jest.setTimeout(120_000);

describe('flotilla login --oidc', () => {
  let provider: TestOidcProvider;
  let hub: TestHub;

  beforeAll(async () => {
    provider = await startOidcProvider(testDir('flotilla-cli-oidc-'), 'idp');
    hub = await startTestHub('postgres', { oidc: { issuer: provider.issuer, clientId: provider.clientId, audience: provider.audience, caFile: provider.caFile, groupsClaim: 'groups' } });
    await createTenants(hub, ['team-a', 'team-b']);
    for (const body of [
      { claim: 'group', value: 'team-a', tenant: 'team-a', role: 'operator' },
      { claim: 'group', value: 'team-b', tenant: 'team-b', role: 'viewer' },
    ]) {
      expect((await hub.call('POST', '/api/v1/oidc-bindings', { body })).status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await hub?.close();
    await provider?.stop();
  });

  /** Runs the device login as `person`, who signs in at the provider when the CLI shows the code. */
  async function signIn(user: CliUser, person: OidcTestUser, name: string) {
    const child = user.spawn(['login', '--oidc', '--hub', hub.url, '--name', name], { env: { NODE_EXTRA_CA_CERTS: provider.caFile } });
    child.stdin!.end();
    const done = collect(child, 'flotilla login --oidc', 90_000);
    const shown = await waitForOutput(child, /confirm the code: (\S+)\n/, 60_000);
    expect(shown).toContain(`To sign in, open ${provider.issuer}/device?user_code=`);
    const code = /confirm the code: (\S+)\n/.exec(shown)![1];
    await provider.approveDevice(code, person);
    return done;
  }

  it('signs in through the device flow and works with the role the groups give', async () => {
    const alice = new CliUser({ NODE_EXTRA_CA_CERTS: provider.caFile });
    const login = await signIn(alice, OIDC_TEST_USERS.alice, 'sso');
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(/logged in to http:\/\/127\.0\.0\.1:\d+ as alice@example\.test \(role operator\); context "sso" is now current/);
    const file = parse(readFileSync(join(alice.configDir, 'flotilla', 'config.yaml'), 'utf8'));
    expect(file.contexts[0]).toMatchObject({ name: 'sso', oidc: { issuer: provider.issuer, 'client-id': 'flotilla', 'refresh-token': expect.any(String) } });

    expect(await alice.ok(['cluster', 'list'])).toBe('no clusters: register one with `flotilla cluster register`\n');
    // an operator of her tenant may write there: deleting a Project that does not exist is a 404, not a refusal
    const del = await alice.run(['project', 'delete', 'nowhere']);
    expect(del.code).toBe(1);
    expect(del.stderr).toMatch(/project "nowhere" not found/);
    // but clusters are hub-wide, not a tenant's to change
    const hubWide = await alice.run(['cluster', 'delete', 'nowhere']);
    expect(hubWide.code).toBe(1);
    expect(hubWide.stderr).toMatch(/is hub-wide; "alice@example\.test" is a member of "team-a" only .*\(rule: tenant scope\)/);

    const bob = new CliUser({ NODE_EXTRA_CA_CERTS: provider.caFile });
    expect((await signIn(bob, OIDC_TEST_USERS.bob, 'sso')).stdout).toMatch(/as bob@example\.test \(role viewer\)/);
    const refused = await bob.run(['cluster', 'delete', 'nowhere']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/not allowed: .*has role viewer; this needs operator/);
    expectNoStack(refused.stderr);
  });

  it('renews an expired access token with the refresh token and saves the new one', async () => {
    const carol = new CliUser({ NODE_EXTRA_CA_CERTS: provider.caFile });
    expect((await hub.call('POST', '/api/v1/oidc-bindings', { body: { claim: 'subject', value: 'carol', role: 'viewer' } })).status).toBe(201);
    expect((await signIn(carol, OIDC_TEST_USERS.carol, 'sso')).code).toBe(0);
    const path = join(carol.configDir, 'flotilla', 'config.yaml');
    const before = parse(readFileSync(path, 'utf8'));
    // the stored token's expiry has passed (as an hour later would have it)
    before.contexts[0].oidc['expires-at'] = Math.floor(Date.now() / 1000) - 60;
    writeFileSync(path, stringify(before), { mode: 0o600 });

    expect(await carol.ok(['cluster', 'list'])).toBe('no clusters: register one with `flotilla cluster register`\n');
    const after = parse(readFileSync(path, 'utf8'));
    expect(after.contexts[0].token).not.toBe(before.contexts[0].token);
    expect(after.contexts[0].oidc['expires-at']).toBeGreaterThan(Math.floor(Date.now() / 1000));
    expect((await hub.call('GET', '/api/v1/session', { token: after.contexts[0].token })).body).toEqual({ name: 'carol@example.test', role: 'viewer', expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), singleSignOn: true });

    // a refresh token the provider no longer honours: a clear message, no stack
    after.contexts[0].oidc['refresh-token'] = 'revoked-or-made-up';
    after.contexts[0].oidc['expires-at'] = 1;
    writeFileSync(path, stringify(after), { mode: 0o600 });
    const failed = await carol.run(['cluster', 'list']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/the sign-in of context "sso" expired and could not be renewed: invalid_grant/);
    expectNoStack(failed.stderr);
  });

  it('says so when the hub has no single sign-on', async () => {
    const plain = await startTestHub('pglite');
    try {
      const r = await new CliUser().run(['login', '--oidc', '--hub', plain.url]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/the hub at http:\/\/127\.0\.0\.1:\d+ has no single sign-on/);
    } finally {
      await plain.close();
    }
  });
});
