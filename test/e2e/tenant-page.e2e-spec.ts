import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startTestHub, type TestHub } from '../../apps/hub/test/hub';
import { launchBrowser, type Browser } from './support/browser';

// Issue 40: a tenant member signed in to the status page (Debian's chromium,
// the page as `npm run build` made it) sees only its tenant's Projects and
// the clusters its tenant may target; an admin sees the whole fleet.

jest.setTimeout(120_000);

describe('the status page for a tenant member', () => {
  let hub: TestHub;
  let browser: Browser;
  let member: string;

  beforeAll(async () => {
    expect(existsSync(join(__dirname, '../../dist/ui/index.html')) ? 'built' : 'dist/ui is missing: run npm run build:test').toBe('built');
    hub = await startTestHub('postgres');
    for (const [name, group] of [
      ['page-a-1', 'team-a'],
      ['page-b-1', 'team-b'],
    ]) {
      expect((await hub.call('POST', '/api/v1/clusters', { body: { name, group, mode: 'agent' } })).status).toBe(201);
    }
    for (const t of ['team-a', 'team-b']) {
      const body = { name: t, destinations: { groups: [t] }, namespaces: [t], serviceAccounts: ['*'], repositories: [`oci://127.0.0.1:5000/${t}`] };
      expect((await hub.call('POST', '/api/v1/tenants', { body })).status).toBe(201);
      const project = { name: `${t}-web`, tenant: t, namespace: t, source: { repository: `oci://127.0.0.1:5000/${t}/web` }, targets: { groups: [t] } };
      expect((await hub.call('POST', '/api/v1/projects', { body: project })).status).toBe(201);
    }
    member = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'alice', role: 'viewer', tenant: 'team-a' } })).body.token;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
  });

  it("shows a member its tenant's Projects and clusters only", async () => {
    const page = await browser.tab();
    await page.goto(hub.url);
    await page.getByLabel('API token').fill(member);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Fleet', exact: true }).waitFor();
    await page.getByText('alice (viewer in team-a)').waitFor();
    await page.getByText('team-a-web').first().waitFor();
    await page.getByText('page-a-1').first().waitFor();
    const text = await page.locator('body').innerText();
    expect(text).not.toContain('team-b-web');
    expect(text).not.toContain('page-b-1');
    await browser.screenshot(page, 'tenant-member');
    // the admin's page, for contrast, holds both
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').fill(hub.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('team-b-web').first().waitFor();
    await page.getByText('page-b-1').first().waitFor();
    await page.close();
  });
});
