import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { UNPULLABLE_IMAGE } from '../harness/kube-nodes';
import { shopProjectFiles, type ShopRevision } from './fixtures/projects';
import { launchBrowser, type Browser } from './support/browser';
import { eventually } from './support/eventually';
import { defaultFleetTiming, type HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { createProject, describeTarget, target } from './support/shop';
import { DeploymentReadiness, describeWorkloads } from './support/spoke';
import { spokeSuite } from './support/suite';

// Issue 39, "seen at a glance": the project page draws the rollout as a
// pipeline of waves, in Debian's chromium, against a compiled hub that applies
// a real Project to the harness API server (registered three times, one
// cluster per group). The webapp's pods are released (DeploymentReadiness) so
// its Deployments become available; a revision with an image kwok never pulls
// stays Ready but not Healthy.

jest.setTimeout(300_000);

/** Where this suite's screenshots go (gitignored). */
const SHOTS = resolve(__dirname, '../../test-results/rollout-page');
const WAVE_LABEL: Record<string, string> = {
  waiting: 'Waiting',
  awaitingApproval: 'Awaiting approval',
  progressing: 'Progressing',
  soaking: 'Soaking',
  done: 'Done',
  failed: 'Failed',
  rolledBack: 'Rolled back',
};
const LAB_DENY = { kind: 'deny', schedule: '0 0 * * *', duration: '24h' };
const [, unpullableRepository, unpullableTag] = /^(.*):([^:]+)$/.exec(UNPULLABLE_IMAGE)!;

interface WaveView {
  index: number;
  groups: string[];
  state: string;
  counts: { total: number; healthy: number; progressing: number; failed: number; pending: number };
}
interface RolloutView {
  revision: string | null;
  waves: WaveView[];
  onHold: boolean;
  rolledBack?: { wave: number; by: string };
  actions: Array<{ action: string; wave?: number; by: string; revision: string }>;
}

describe('the rollout pipeline on the project page, in a real browser', () => {
  let fleet: HubFleet;
  const { registry, kube, ns, beforeStop } = spokeSuite('e2e-rp', {
    started: (f) => (fleet = f),
    instanceNamespaces: (n) => [`${n}-stage-1`, `${n}-prod-1`, `${n}-lab-1`],
    spokes: [['stage-1', 'staging'], ['prod-1', 'production'], ['lab-1', 'lab']],
    // a wave is done once its Deployment is available: seen within 3 s, not the default 30
    timing: { ...defaultFleetTiming(), healthRecheck: '3s' },
  });
  let browser: Browser;
  let operator: string;
  let viewer: string;
  let repo: string;
  let base: ShopRevision;
  const shots: string[] = [];

  const hubUrl = () => fleet.hubs[0].url;
  const guarded = (body: () => Promise<void>) => () => fleet.guard(body)();
  const token = async (name: string, role: string) => (await fleet.expectCall(201, 'POST', '/api/v1/tokens', { name, role })).body.token as string;
  const rollout = async () => (await fleet.expectCall(200, 'GET', '/api/v1/projects/shop/rollout')).body as RolloutView;
  const publish = async (message: string, extra: Partial<ShopRevision> = {}) => `latest@${await publishProject(registry, repo, shopProjectFiles({ ...base, message, ...extra }))}`;
  const status = (t: { conditions: Array<{ type: string; status: string }> }, type: string) => t.conditions.find((c) => c.type === type)?.status;

  async function signIn(page: Page, secret: string): Promise<void> {
    await page.goto(await hubUrl());
    await page.getByLabel('API token').fill(secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Fleet', exact: true }).waitFor();
  }

  async function openProject(page: Page): Promise<void> {
    await page.goto(`${await hubUrl()}/#/projects/shop`);
    await page.getByRole('heading', { name: /Project shop/ }).waitFor();
    await pipeline(page).waitFor();
  }

  const pipeline = (page: Page) => page.getByRole('list', { name: 'Waves of shop, in order' });

  async function shot(page: Page, name: string): Promise<void> {
    const file = join(SHOTS, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    shots.push(file);
  }

  /** The waves as the page draws them, in order: "heading | state". */
  async function drawnWaves(page: Page): Promise<string[]> {
    const steps = pipeline(page).getByRole('listitem');
    const out: string[] = [];
    for (let i = 0; i < (await steps.count()); i++) {
      const step = steps.nth(i);
      out.push(`${await step.getByRole('heading').innerText()} | ${(await step.locator('.state').first().innerText()).replace(/^\S+\s+/, '')}`);
    }
    return out;
  }

  /** The waves the page draws: the last wave, of the groups no wave names, only when it holds a cluster. */
  const drawable = (view: RolloutView) => view.waves.filter((w) => w.groups.length > 0 || w.counts.total > 0);

  /** Waits until the page draws the waves the API reports, in the API's order, with `expected` states; returns the API's view. */
  async function pageMatchesApi(page: Page, expected: string[]): Promise<RolloutView> {
    let seen: string[] = [];
    return eventually(
      `the page to draw the waves ${expected.join(', ')} as the API reports them`,
      async () => {
        const view = await rollout();
        const drawn = await drawnWaves(page);
        const fromApi = drawable(view).map((w) => `Wave ${w.index}: ${w.groups.length > 0 ? w.groups.join(', ') : 'every other group'} | ${WAVE_LABEL[w.state]}`);
        seen = [`api: ${view.waves.map((w) => `[${w.groups.join(',')}] ${w.state} ${JSON.stringify(w.counts)}`).join('; ')}`, `drawn: ${drawn.join('; ')}`];
        return JSON.stringify(drawable(view).map((w) => w.state)) === JSON.stringify(expected) && JSON.stringify(drawn) === JSON.stringify(fromApi) ? view : undefined;
      },
      // short lines, Targets first: a CI log that cuts long output keeps them
      { timeoutMs: 180_000, observe: async () => [...seen, ...(await clusterStates())] },
    );
  }

  /** For a failed wait: each Target's phase and conditions, and the workloads and nodes its namespace holds. */
  async function clusterStates(): Promise<string[]> {
    const clusters = ['stage-1', 'prod-1', 'lab-1'];
    const targets = await Promise.all(clusters.map((c) => target(fleet, 'shop', c).then(describeTarget, (e: Error) => `${c}: ${e.message}`)));
    // the three clusters are one API server: its nodes are listed once
    const workloads = await Promise.all(clusters.map(async (c, i) => (await describeWorkloads(kube, `${ns}-${c}`)).filter((line) => i === 0 || !line.startsWith('Node ')).map((line) => `${c}: ${line}`)));
    return [...targets, ...workloads.flat()];
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    repo = projectRepository();
    base = { moduleUrl: await publishWebapp(registry), moduleVersion: '1.0.0', namespace: `${ns}-\\(_cluster)`, infra: ['db'], message: '' };
    const readiness = new DeploymentReadiness(kube, () => [`${ns}-stage-1`, `${ns}-prod-1`, `${ns}-lab-1`], 0).start();
    beforeStop(() => readiness.stop());
    operator = await token('ops', 'operator');
    viewer = await token('wall', 'viewer');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    // the report lists them
    console.log(`rollout page screenshots:\n${shots.join('\n')}`);
  });

  it('draws the waves in order as the API reports them; a viewer sees no buttons, an operator approves the waiting wave', guarded(async () => {
      const v1 = await publish('v1');
      await createProject(fleet, { name: 'shop', namespace: ns, repository: repo }, {
        targets: { groups: ['staging', 'production', 'lab'] },
        // lab may take a revision only outside a deny window that is always open, until the window goes
        rollout: { waves: [{ group: 'staging' }, { group: 'production', approval: true, maxFailures: 1 }, { group: 'lab', windows: [LAB_DENY] }] },
        interval: '1h',
      });

      const wall = await browser.tab();
      await signIn(wall, viewer);
      await openProject(wall);
      const waiting = await pageMatchesApi(wall, ['done', 'awaitingApproval', 'waiting']);
      expect(waiting.revision).toBe(v1);
      // the API's last wave, of groups no wave names, holds no cluster here: the page leaves it out
      expect(waiting.waves.map((w) => [w.groups, w.counts.total])).toEqual([[['staging'], 1], [['production'], 1], [['lab'], 1], [[], 0]]);
      expect(waiting.waves[0].counts).toEqual({ total: 1, healthy: 1, progressing: 0, failed: 0, pending: 0 });
      const approvalStep = pipeline(wall).getByRole('listitem').nth(1);
      await approvalStep.getByText('Failure budget').waitFor();
      expect(await approvalStep.getByRole('img', { name: /Wave 1 progress: 0 healthy, 0 progressing, 0 failed, 1 pending of 1/ }).count()).toBe(1);
      expect(await approvalStep.locator('dd').allInnerTexts()).toEqual(['1', 'all']);
      // a viewer gets no rollout buttons, and the API refuses the action anyway
      expect(await wall.getByRole('button', { name: /Approve|Hold|Retry|Roll back/ }).count()).toBe(0);
      const refused = await wall.evaluate(async (t) => (await fetch('/api/v1/projects/shop/rollout/approve', { method: 'POST', headers: { authorization: `Bearer ${t}` } })).status, viewer);
      expect(refused).toBe(403);
      await wall.close();

      const ops = await browser.tab();
      await signIn(ops, operator);
      await openProject(ops);
      const approve = ops.getByRole('button', { name: 'Approve Wave 1' });
      await approve.waitFor();
      // only the wave awaiting approval has one
      expect(await ops.getByRole('button', { name: /^Approve/ }).count()).toBe(1);
      await shot(ops, 'awaiting-approval');
      await approve.click();
      await ops.getByRole('status').filter({ hasText: 'Approve wave 1: done' }).waitFor();
      // the API recorded the approval with the operator's token name, and the wave opened
      const approved = await eventually('wave 1 to open after the approval', async () => {
        const view = await rollout();
        return view.waves[1].state !== 'awaitingApproval' && view.waves[1].state !== 'waiting' ? view : undefined;
      }, { timeoutMs: 60_000, observe: rollout });
      expect(approved.actions).toEqual([expect.objectContaining({ action: 'approve', wave: 1, by: 'ops', revision: v1 })]);
      await ops.getByRole('listitem').filter({ hasText: /Approved wave 1 by ops/ }).waitFor();
      await eventually('prod-1 on v1', async () => ((await target(fleet, 'shop', 'prod-1')).lastAppliedRevision === v1 ? true : undefined), { timeoutMs: 60_000 });
      // lab's own window holds it before any of its clusters moved: the page says which
      await pageMatchesApi(ops, ['done', 'done', 'waiting']);
      await pipeline(ops).getByRole('listitem').nth(2).getByText('Window closed: inside the deny window deny "0 0 * * *" for 24h (UTC). Its clusters start no new revision.').waitFor();
      await shot(ops, 'wave-window-closed');
      await fleet.expectCall(200, 'PATCH', '/api/v1/projects/shop', { rollout: { waves: [{ group: 'staging' }, { group: 'production', approval: true, maxFailures: 1 }, { group: 'lab' }] } });
      await pageMatchesApi(ops, ['done', 'done', 'done']);
      expect(await ops.getByText('Window closed').count()).toBe(0);
      await ops.close();
    }));

  it('shows a Target Ready but not Healthy as Unhealthy, never Ready, and its wave progressing; hold, retry and a confirmed roll back', guarded(async () => {
      const broken = await publish('v2', { extraWebValues: `image: {repository: "${unpullableRepository}", tag: "${unpullableTag}"}` });
      await eventually('stage-1 applied on the broken revision, Ready but not Healthy', async () => {
        const t = await target(fleet, 'shop', 'stage-1');
        return t.lastAppliedRevision === broken && t.phase === 'Ready' && status(t, 'Healthy') === 'False' ? t : undefined;
      }, { timeoutMs: 120_000, observe: () => target(fleet, 'shop', 'stage-1') });

      const ops = await browser.tab();
      await signIn(ops, operator);
      // the fleet overview counts and draws it apart from Ready
      const cell = ops.getByRole('link', { name: /^shop on stage-1:/ });
      await cell.filter({ hasText: 'Unhealthy' }).waitFor();
      expect(await cell.getAttribute('aria-label')).toBe('shop on stage-1: Unhealthy');
      await ops.locator('.count[data-state="Unhealthy"]').filter({ hasText: /^1$/ }).waitFor();

      await openProject(ops);
      const view = await pageMatchesApi(ops, ['progressing', 'waiting', 'waiting']);
      expect(view.revision).toBe(broken);
      expect(view.waves[0].counts).toMatchObject({ total: 1, progressing: 1, healthy: 0 });
      await pipeline(ops).getByRole('img', { name: 'Wave 0 progress: 0 healthy, 1 progressing, 0 failed, 0 pending of 1' }).waitFor();
      const row = ops.getByRole('row', { name: /^stage-1 / });
      await row.getByText('Unhealthy').waitFor();
      expect(await row.getByText('Ready', { exact: true }).count()).toBe(0);
      await shot(ops, 'pipeline-in-progress');

      await ops.goto(`${await hubUrl()}/#/projects/shop/targets/stage-1`);
      await ops.getByRole('heading', { name: /shop on stage-1/ }).getByText('Unhealthy').waitFor();
      await ops.getByRole('row', { name: /^Healthy False/ }).waitFor();
      await shot(ops, 'unhealthy-target');

      await openProject(ops);
      await ops.getByRole('button', { name: 'Hold' }).click();
      await ops.getByText(/On hold: no cluster starts this revision/).waitFor();
      expect((await rollout()).onHold).toBe(true);
      await ops.getByRole('button', { name: 'Retry' }).click();
      await ops.getByRole('status').filter({ hasText: 'Retry: done' }).waitFor();
      expect((await rollout()).onHold).toBe(false);
      expect(await ops.getByText(/On hold:/).count()).toBe(0);

      // a roll back asks first: nothing happens until it is confirmed
      await ops.getByRole('button', { name: 'Roll back…' }).click();
      const confirm = ops.getByRole('group', { name: 'Confirm roll back' });
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      expect((await rollout()).rolledBack).toBeUndefined();
      await ops.getByRole('button', { name: 'Roll back…' }).click();
      await confirm.getByRole('button', { name: 'Confirm roll back' }).click();
      await ops.getByRole('status').filter({ hasText: /Rolled back from wave 0 by ops/ }).waitFor();
      const back = await rollout();
      expect(back.rolledBack).toMatchObject({ wave: 0, by: 'ops' });
      expect(back.actions.filter((a) => a.revision === broken).map((a) => `${a.action} by ${a.by}`)).toEqual(['hold by ops', 'retry by ops', 'rollback by ops']);
      await ops.getByRole('listitem').filter({ hasText: /Rolled back from wave 0 by ops/ }).waitFor();
      await shot(ops, 'rolled-back');
      await ops.close();
    }));
});
