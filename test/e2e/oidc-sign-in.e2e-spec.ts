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

  async function signIn(page: Page, user: OidcTestUser): Promise<void> {
    // each person starts without the provider's session of the one before (one browser profile serves all tabs)
    await browser.context.clearCookies();
    await page.goto(hub.url);
    await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
    // the provider's page, over TLS from the test CA the browser trusts
    await page.waitForURL(`${provider.issuer}/**`);
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${hub.url}/**`);
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
    expect((await hub.call('GET', '/api/v1/session', { token })).body).toEqual({ name: 'bob@example.test', role: 'viewer', tenants: { 'team-b': 'viewer' } });
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

  it('tells a person whose groups have no binding why they cannot get in', async () => {
    const page = await browser.tab();
    await signIn(page, OIDC_TEST_USERS.alice);
    await page.getByRole('alert').filter({ hasText: /"alice@example.test" signed in, but neither subject "alice" nor groups \["team-a"\] have a binding/ }).waitFor();
    expect((await page.evaluate('sessionStorage.getItem("flotilla.token")')) as string | null).toBeNull();
    await page.close();
  });
});
