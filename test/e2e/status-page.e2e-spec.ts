import type { Page } from 'playwright-core';
import { shopProjectFiles } from './fixtures/projects';
import { launchBrowser, type Browser } from './support/browser';
import { eventually } from './support/eventually';
import type { HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { createProject, readyOn, runs, target } from './support/shop';
import { DeploymentReadiness } from './support/spoke';
import { spokeSuite } from './support/suite';

// Issue 18: the status page in Debian's chromium, against a compiled hub on
// the harness PostgreSQL that applies a real Project from the harness
// registry to the harness API server (registered twice, as two groups).

jest.setTimeout(120_000);

// What the functions run inside the page read (this project compiles without the DOM library).
declare const sessionStorage: { getItem(key: string): string | null };
declare const localStorage: { length: number };
declare const window: { noReload?: boolean };

describe('status page in a real browser', () => {
  let fleet: HubFleet;
  const { registry, kube, ns, beforeStop } = spokeSuite('e2e-ui', {
    started: (f) => (fleet = f),
    instanceNamespaces: (n) => [`${n}-stage-1`, `${n}-prod-1`],
    spokes: [['stage-1', 'staging'], ['prod-1', 'production']],
  });
  let browser: Browser;
  let revision: string;
  let operator: string;
  let viewer: string;

  const token = async (name: string, role: string) => (await fleet.expectCall(201, 'POST', '/api/v1/tokens', { name, role })).body.token as string;
  const hubUrl = () => fleet.hubs[0].url;
  // the fleet exists only once the suite started: wrap each body when it runs
  const guarded = (body: () => Promise<void>) => () => fleet.guard(body)();

  async function signIn(page: Page, secret: string): Promise<void> {
    await page.goto(await hubUrl());
    await page.getByLabel('API token').fill(secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  beforeAll(async () => {
    // the webapp's pods are released so its Deployments become available: the page shows Ready only when Healthy too
    const readiness = new DeploymentReadiness(kube, () => [`${ns}-stage-1`, `${ns}-prod-1`], 0).start();
    beforeStop(() => readiness.stop());
    const moduleUrl = await publishWebapp(registry);
    const repo = projectRepository();
    revision = `latest@${await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: `${ns}-\\(_cluster)`, infra: ['db'], message: 'hello' }))}`;
    await createProject(fleet, { name: 'shop', namespace: ns, repository: repo }, { targets: { groups: ['staging', 'production'] }, interval: '1h' });
    // a Project whose service account does not exist: a real failure on both clusters
    await createProject(fleet, { name: 'billing', namespace: ns, repository: repo }, { targets: { groups: ['staging', 'production'] }, serviceAccountName: 'nobody', interval: '1h' });
    await fleet.expectCall(201, 'POST', '/api/v1/clusters', { name: 'edge-1', group: 'edge', mode: 'agent', labels: { site: 'harbour' } });
    await readyOn(fleet, 'shop', 'stage-1', revision);
    await readyOn(fleet, 'shop', 'prod-1', revision);
    // past the engine's health recheck (30 s): Healthy=True on both
    for (const cluster of ['stage-1', 'prod-1']) {
      await eventually(`shop Healthy on ${cluster}`, async () => ((await target(fleet, 'shop', cluster)).conditions.some((c) => c.type === 'Healthy' && c.status === 'True') ? true : undefined), {
        timeoutMs: 120_000,
        observe: () => target(fleet, 'shop', cluster),
      });
    }
    operator = await token('ops', 'operator');
    viewer = await token('wall', 'viewer');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('refuses a wrong token and keeps the page signed out', guarded(async () => {
      const page = await browser.tab();
      await signIn(page, 'flt_not-a-real-token-0123456789');
      await page.getByRole('alert').filter({ hasText: 'This token was refused' }).waitFor();
      expect(await page.getByRole('heading', { name: 'Fleet', exact: true }).count()).toBe(0);
      expect(await page.evaluate(() => sessionStorage.getItem('flotilla.token'))).toBeNull();
      await browser.screenshot(page, 'wrong-token');
      await page.close();
    }));

  it('signs in and shows the harness clusters and Projects with their real states', guarded(async () => {
      const page = await browser.tab();
      await signIn(page, operator);
      await page.getByRole('heading', { name: 'Fleet', exact: true }).waitFor();
      await page.getByText('ops (operator)').waitFor();
      // the token stays in this tab's session only, never in the address
      expect(page.url()).not.toContain(operator);
      expect(await page.evaluate(() => localStorage.length)).toBe(0);
      const matrix = page.getByRole('table', { name: 'Clusters × Projects' });
      const cell = (cluster: string, project: string) => matrix.getByRole('row', { name: new RegExp(`^${cluster} `) }).getByRole('link', { name: new RegExp(`^${project} on ${cluster}:`) });
      await expect(await cell('stage-1', 'shop').getAttribute('title')).toContain(`Ready, revision latest@${revision.split('sha256:')[1].slice(0, 12)}`);
      await cell('prod-1', 'shop').filter({ hasText: 'Ready' }).waitFor();
      await cell('stage-1', 'billing').filter({ hasText: /Failed|Stalled/ }).waitFor();
      await matrix.getByRole('row', { name: /^edge-1 / }).getByText('agent').waitFor();
      const groups = page.getByRole('table', { name: 'Targets by cluster group and state' });
      expect(await groups.getByRole('row').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringMatching(/^edge\s+1\s+0/), expect.stringMatching(/^production\s+1\s/)]));
      await page.locator('.count[data-state="Ready"]').filter({ hasText: /^2$/ }).waitFor();

      // the filter narrows the matrix by name, in the same page
      await page.getByLabel('Cluster name').fill('prod');
      await page.getByText('Clusters 1–1 of 1').waitFor();
      expect(await matrix.getByRole('row', { name: /^stage-1 / }).count()).toBe(0);
      await page.getByLabel('Cluster name').fill('');
      await page.getByText('Clusters 1–3 of 3').waitFor();
      await browser.screenshot(page, 'overview');
      await page.close();
    }));

  it('drills down from the matrix to a Target and its runs, and to the cluster and the Project', guarded(async () => {
      const page = await browser.tab();
      await signIn(page, operator);
      await page.getByRole('link', { name: /^shop on stage-1:/ }).click();
      await page.getByRole('heading', { name: /shop on stage-1/ }).waitFor();
      const runRows = page.getByRole('table').filter({ has: page.getByRole('columnheader', { name: 'Trigger' }) }).getByRole('row');
      await runRows.filter({ hasText: 'Created' }).filter({ hasText: 'Succeeded' }).waitFor();
      await page.getByRole('row', { name: /^app .*\/web/ }).waitFor();
      await page.getByRole('row', { name: /^Ready True/ }).waitFor();
      await browser.screenshot(page, 'target');

      await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'stage-1' }).click();
      await page.getByRole('heading', { name: 'Cluster stage-1' }).waitFor();
      await page.getByText('reachable').first().waitFor();
      await page.getByRole('row', { name: /^billing / }).waitFor();
      await browser.screenshot(page, 'cluster');

      await page.getByRole('row', { name: /^shop / }).getByRole('link').click();
      await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'shop' }).click();
      await page.getByRole('heading', { name: /Project shop/ }).waitFor();
      await page.getByText('1 of 1 Ready').first().waitFor();
      await page.getByText(/resolved to sha256:/).waitFor();
      await browser.screenshot(page, 'project');
      await page.close();
    }));

  it('updates the open page live when a Project is reconciled through the API', guarded(async () => {
      const page = await browser.tab();
      await signIn(page, viewer);
      await page.goto(`${await hubUrl()}/#/projects/shop/targets/prod-1`);
      await page.getByRole('heading', { name: /shop on prod-1/ }).waitFor();
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      // a mark in the document: a reload would drop it
      await page.evaluate(() => (window.noReload = true));
      const before = (await runs(fleet, 'shop', 'prod-1')).length;
      await fleet.expectCall(202, 'POST', '/api/v1/projects/shop/reconcile?cluster=prod-1');
      const manual = page.getByRole('row').filter({ hasText: 'Manual' }).filter({ hasText: 'Succeeded' });
      await manual.waitFor({ timeout: 60_000 });
      expect((await runs(fleet, 'shop', 'prod-1')).length).toBeGreaterThan(before);
      expect(await page.evaluate(() => window.noReload)).toBe(true);
      await browser.screenshot(page, 'live-update');
      await page.close();
    }));

  it('shows no actions to a viewer (the API refuses them too); an operator\'s reconcile runs', guarded(async () => {
      const page = await browser.tab();
      await signIn(page, viewer);
      await page.goto(`${await hubUrl()}/#/projects/shop`);
      await page.getByRole('heading', { name: /Project shop/ }).waitFor();
      await page.getByText('Signed in as a viewer').waitFor();
      expect(await page.getByRole('button', { name: /Reconcile now|Suspend|Resume/ }).count()).toBe(0);
      const refused = await page.evaluate(async (t) => (await fetch('/api/v1/projects/shop/reconcile', { method: 'POST', headers: { authorization: `Bearer ${t}` } })).status, viewer);
      expect(refused).toBe(403);
      await browser.screenshot(page, 'viewer');
      await page.close();

      const ops = await browser.tab();
      await signIn(ops, operator);
      await ops.goto(`${await hubUrl()}/#/projects/shop/targets/stage-1`);
      await ops.getByRole('heading', { name: /shop on stage-1/ }).waitFor();
      const manualRuns = async () => (await runs(fleet, 'shop', 'stage-1')).filter((r) => r.trigger === 'Manual').length;
      const before = await manualRuns();
      // by keyboard: the button takes focus and Enter presses it
      await ops.getByRole('button', { name: 'Reconcile now' }).focus();
      await ops.keyboard.press('Enter');
      await ops.getByRole('status').filter({ hasText: 'Reconcile now: requested' }).waitFor();
      await ops.getByRole('row').filter({ hasText: 'Manual' }).filter({ hasText: 'Succeeded' }).first().waitFor({ timeout: 60_000 });
      expect(await manualRuns()).toBeGreaterThan(before);
      await browser.screenshot(ops, 'operator-reconcile');
      await ops.close();
    }));

  it('opens on the fleet without a token where the hub lets anyone read, with sign-in for operators',
    guarded(async () => {
      const open = await fleet.addHub('hub-anon', { FLOTILLA_ANONYMOUS_VIEWER: 'on', FLOTILLA_SCHEDULER: 'off' });
      const page = await browser.tab();
      await page.goto(await open.url);
      await page.getByRole('heading', { name: 'Fleet', exact: true }).waitFor();
      await page.getByText('anonymous (viewer)').waitFor();
      await page.getByRole('link', { name: /^shop on stage-1: Ready/ }).waitFor();
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      await browser.screenshot(page, 'anonymous');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('API token').fill(operator);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('ops (operator)').waitFor();
      await page.close();
    }));
});
