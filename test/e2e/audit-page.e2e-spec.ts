import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startTestHub, type TestHub } from '../../apps/hub/test/hub';
import { eventually } from '../../apps/hub/test/scheduler-fixtures';
import { launchBrowser, type Browser } from './support/browser';

// Issue 40: the status page's Audit view in Debian's chromium, against the
// real hub on the harness PostgreSQL (the page as `npm run build` made it).

jest.setTimeout(120_000);

describe('the audit view of the status page', () => {
  let hub: TestHub;
  let browser: Browser;
  let operator: string;

  async function signIn(page: Page, secret: string): Promise<void> {
    await page.goto(hub.url);
    await page.getByLabel('API token').fill(secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Fleet', exact: true }).waitFor();
  }

  beforeAll(async () => {
    expect(existsSync(join(__dirname, '../../dist/ui/index.html')) ? 'built' : 'dist/ui is missing: run npm run build:test').toBe('built');
    hub = await startTestHub('postgres');
    operator = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'ops', role: 'operator' } })).body.token;
    const viewer = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'wall', role: 'viewer' } })).body.token;
    expect((await hub.call('POST', '/api/v1/clusters', { token: operator, body: { name: 'audit-ui-1', mode: 'agent' } })).status).toBe(201);
    expect((await hub.call('DELETE', '/api/v1/clusters/audit-ui-1', { token: viewer })).status).toBe(403);
    await eventually('both entries stored', async () => {
      const res = await hub.call('GET', '/api/v1/audit?object=cluster/audit-ui-1');
      return res.body.items.length === 2 ? true : undefined;
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
  });

  it('shows an admin the entries, newest first, and filters them by object', async () => {
    const page = await browser.tab();
    await signIn(page, hub.adminToken);
    await page.getByRole('link', { name: 'Audit', exact: true }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const table = page.getByRole('table', { name: 'Audit entries' });
    const created = table.getByRole('row').filter({ hasText: 'POST /api/v1/clusters' }).filter({ hasText: 'cluster/audit-ui-1' });
    await created.filter({ hasText: 'ops' }).filter({ hasText: '201' }).waitFor();
    const refused = table.getByRole('row').filter({ hasText: 'DELETE /api/v1/clusters/:name' });
    await refused.filter({ hasText: 'wall' }).filter({ hasText: '403' }).waitFor();
    // the token creations are entries too; the object filter leaves the cluster's two
    await table.getByRole('row').filter({ hasText: 'POST /api/v1/tokens' }).first().waitFor();
    await page.getByLabel('Object').fill('cluster/audit-ui-1');
    await eventually('the filtered table', async () => ((await table.getByRole('row').count()) === 3 ? true : undefined));
    const rows = await table.getByRole('row').allInnerTexts();
    expect(rows[1]).toContain('DELETE /api/v1/clusters/:name');
    expect(rows[2]).toContain('POST /api/v1/clusters');
    await browser.screenshot(page, 'audit');
    await page.close();
  });

  it('offers an operator no audit view', async () => {
    const page = await browser.tab();
    await signIn(page, operator);
    await page.getByText('ops (operator)').waitFor();
    expect(await page.getByRole('link', { name: 'Audit', exact: true }).count()).toBe(0);
    await page.goto(`${hub.url}/#/audit`);
    await page.getByRole('heading', { name: 'Fleet', exact: true }).waitFor();
    expect(await page.getByRole('heading', { name: 'Audit log' }).count()).toBe(0);
    await page.close();
  });
});
