import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startTestHub, type TestHub } from '../../apps/hub/test/hub';
import { OIDC_TEST_USERS, startOidcProvider, type OidcTestUser, type TestOidcProvider } from '../harness/oidc-provider';
import { testDir } from '../harness/temp-dirs';
import { launchBrowser, type Browser } from './support/browser';
import { createTenants } from '../../apps/hub/test/tenants';

// Issue 40: a person signs in to the status page through the hub's OpenID
// provider (authorization code with PKCE, run by the hub), in Debian's
// chromium, through the provider's own login form, and lands with the role
// their groups give.

jest.setTimeout(120_000);

describe('single sign-on on the status page', () => {
  let provider: TestOidcProvider;
  let hub: TestHub;
  let browser: Browser;

  beforeAll(async () => {
    expect(existsSync(join(__dirname, '../../dist/ui/index.html')) ? 'built' : 'dist/ui is missing: run npm run build:test').toBe('built');
    provider = await startOidcProvider(testDir('flotilla-page-oidc-'), 'idp');
    hub = await startTestHub('postgres', { oidc: { issuer: provider.issuer, clientId: provider.clientId, audience: provider.audience, caFile: provider.caFile, groupsClaim: 'groups' } });
    await createTenants(hub, ['team-b']);
    for (const body of [
      { claim: 'group', value: 'team-b', tenant: 'team-b', role: 'viewer' },
      { claim: 'group', value: 'platform-admins', role: 'admin' },
    ]) {
      expect((await hub.call('POST', '/api/v1/oidc-bindings', { body })).status).toBe(201);
    }
    browser = await launchBrowser({ trustCaFiles: [provider.caFile] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
    await provider?.stop();
  });

  /** Signs `user` in on the page of `on.hub` (default: the suite's hub, provider and browser). */
  async function signIn(page: Page, user: OidcTestUser, on: { hub: TestHub; provider: TestOidcProvider; browser: Browser } = { hub, provider, browser }): Promise<void> {
    const { hub: at, provider: idp, browser: tabs } = on;
    // each person starts without the provider's session of the one before (one browser profile serves all tabs)
    await tabs.context.clearCookies();
    await page.goto(at.url);
    await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
    // the provider's page, over TLS from the test CA the browser trusts
    await page.waitForURL(`${idp.issuer}/**`);
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${at.url}/**`);
  }

  it('brings a viewer back signed in as a viewer, without the audit view, and with no token in a URL or a lasting cookie', async () => {
    const page = await browser.tab();
    const visited: string[] = [];
    page.on('request', (r) => visited.push(r.url()));
    await signIn(page, OIDC_TEST_USERS.bob);
    await page.getByText('bob@example.test (viewer in team-b)').waitFor();
    await page.getByRole('heading', { name: 'Fleet', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Audit', exact: true }).count()).toBe(0);
    expect(page.url()).toBe(`${hub.url}/#/`);
    const token = (await page.evaluate('sessionStorage.getItem("flotilla.token")')) as string | null;
    expect(token).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    expect((await hub.call('GET', '/api/v1/session', { token })).body).toEqual({ name: 'bob@example.test', role: 'viewer', tenants: { 'team-b': 'viewer' }, expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), singleSignOn: true });
    // the token never rode in a URL, and the cookie that carried it to the page is gone
    expect(visited.filter((u) => u.includes(token!))).toEqual([]);
    // (cookies are per host, not per port: the provider's own session cookies on 127.0.0.1 show here too)
    expect((await browser.context.cookies(hub.url)).map((c) => c.name).filter((n) => n.startsWith('flotilla'))).toEqual([]);
    // collected once: a second collection finds nothing
    expect(await page.evaluate("fetch('/auth/oidc/session', { method: 'POST' }).then((r) => r.status)")).toBe(401);
    await browser.screenshot(page, 'oidc-viewer');
    await page.close();
  });

  it('brings an admin back with the audit view', async () => {
    const page = await browser.tab();
    await signIn(page, OIDC_TEST_USERS.carol);
    await page.getByText('carol@example.test (admin)').waitFor();
    await page.getByRole('link', { name: 'Audit', exact: true }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page.close();
  });

  it('signs in again before the token expires, without asking, and comes back to the same view', async () => {
    // a provider whose access tokens last 30 s: the page renews some 8 s before the end
    const shortIdp = await startOidcProvider(testDir('flotilla-page-oidc-short-'), 'idp-short', { accessTokenTtlSeconds: 30 });
    const shortHub = await startTestHub('postgres', { oidc: { issuer: shortIdp.issuer, clientId: shortIdp.clientId, audience: shortIdp.audience, caFile: shortIdp.caFile, groupsClaim: 'groups' } });
    // a browser that trusts this provider's own test CA
    const shortBrowser = await launchBrowser({ trustCaFiles: [shortIdp.caFile] });
    try {
      expect((await shortHub.call('POST', '/api/v1/oidc-bindings', { body: { claim: 'group', value: 'platform-admins', role: 'admin' } })).status).toBe(201);
      expect((await shortHub.call('POST', '/api/v1/clusters', { body: { name: 'edge-1', mode: 'agent' } })).status).toBe(201);
      const page = await shortBrowser.tab();
      await signIn(page, OIDC_TEST_USERS.carol, { hub: shortHub, provider: shortIdp, browser: shortBrowser });
      await page.getByText('carol@example.test (admin)').waitFor();
      await page.evaluate("location.hash = '#/clusters/edge-1'");
      await page.getByRole('heading', { name: 'Cluster edge-1' }).waitFor();
      const first = (await page.evaluate('sessionStorage.getItem("flotilla.token")')) as string;
      const session = (await shortHub.call('GET', '/api/v1/session', { token: first })).body;
      expect(Date.parse(session.expiresAt) - Date.now()).toBeLessThanOrEqual(30_000);

      // the renewal: through the provider (whose session answers at once, no form) and back
      await page.waitForRequest((r) => r.url() === `${shortHub.url}/auth/oidc/login`, { timeout: 60_000 });
      await page.waitForURL(`${shortHub.url}/#/clusters/edge-1`, { timeout: 30_000 });
      await page.getByRole('heading', { name: 'Cluster edge-1' }).waitFor();
      await page.getByText('carol@example.test (admin)').waitFor();
      const second = (await page.evaluate('sessionStorage.getItem("flotilla.token")')) as string;
      expect(second).toMatch(/^ey/);
      expect(second).not.toBe(first);
      expect((await shortHub.call('GET', '/api/v1/session', { token: second })).body).toMatchObject({ name: 'carol@example.test', role: 'admin', singleSignOn: true });
      expect(await page.getByRole('heading', { name: 'Sign in' }).count()).toBe(0);
      await page.close();
    } finally {
      await shortBrowser.close();
      await shortHub.close();
      await shortIdp.stop();
    }
  });

  it('tells a person whose groups have no binding why they cannot get in', async () => {
    const page = await browser.tab();
    await signIn(page, OIDC_TEST_USERS.alice);
    await page.getByRole('alert').filter({ hasText: /"alice@example.test" signed in, but neither subject "alice" nor groups \["team-a"\] have a binding/ }).waitFor();
    expect((await page.evaluate('sessionStorage.getItem("flotilla.token")')) as string | null).toBeNull();
    await page.close();
  });
});
