// `npm run bench:ui`: the compiled hub on a real PostgreSQL holding
// BENCH_CLUSTERS clusters (default 10,000) in 20 groups × 3 Projects (a
// Target each, in mixed states), and the status page in Debian's chromium
// (the browser suite's launcher). Measures, BENCH_ROUNDS times each:
// - first meaningful view: from navigation start to the state counts and
//   the first page of the matrix drawn, cold (empty cache) and warm;
// - filtered matrix: from typing a filter (name, group, labels) to the
//   filtered rows drawn.
// Goals: under 1 s and under 300 ms. The browser and the hub share this machine.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import type { Page } from 'playwright-core';
import { freePort } from '../../../test/harness/ports';
import { startPostgres } from '../../../test/harness/postgres';
import { launchBrowser } from '../../../test/e2e/support/browser';

// What the functions run inside the page use (this project compiles without the DOM library).
interface PageElement {
  value: string;
  tagName: string;
  textContent: string | null;
  isConnected: boolean;
  dispatchEvent(event: unknown): boolean;
}
declare const document: { querySelector(selector: string): PageElement | null; querySelectorAll(selector: string): { length: number }; getElementById(id: string): PageElement | null };
declare const sessionStorage: { setItem(key: string, value: string): void };
declare function requestAnimationFrame(callback: () => void): number;
declare const Event: new (type: string, init: { bubbles: boolean }) => unknown;

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const TOKEN = 'bench-admin-token-0123456789abcdef';
const ROOT = resolve(__dirname, '../../..');

async function seed(url: string): Promise<void> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const started = Date.now();
    await db.query(`INSERT INTO clusters (name, group_name, labels, mode, reachable, server_version)
      SELECT 'c-' || lpad(i::text, 5, '0'), 'g-' || lpad((i % 20)::text, 2, '0'),
             jsonb_build_object('env', CASE WHEN i % 2 = 0 THEN 'prod' ELSE 'stage' END, 'region', 'r' || (i % 5)),
             'agent', true, 'v1.36.3'
      FROM generate_series(1, $1::int) i`, [CLUSTERS]);
    await db.query(`INSERT INTO projects (name, tenant, namespace, source_repository, source_tag, service_account_name, target_selector, source_digest)
      SELECT n, 'default', 'apps', 'oci://registry.example.com/' || n, 'stable', n, '{"labelSelector": {"matchLabels": {}}}', 'sha256:${'a'.repeat(64)}'
      FROM unnest(ARRAY['api', 'db', 'web']) n`);
    const stalled = JSON.stringify([{ type: 'Stalled', status: 'True', reason: 'InvalidProject', message: 'x', lastTransitionTime: new Date().toISOString() }]);
    // mostly Ready, with a sprinkle of every other state
    await db.query(`INSERT INTO targets (project_id, cluster_id, phase, conditions, observed_generation, last_applied_revision, next_run_at)
      SELECT p.id, c.id,
        CASE WHEN h % 97 = 0 THEN 'Failed' WHEN h % 89 = 0 THEN 'Reconciling' WHEN h % 83 = 0 THEN 'Suspended' WHEN h % 79 = 0 THEN 'Pending' ELSE 'Ready' END,
        CASE WHEN h % 194 = 0 THEN $1::jsonb ELSE '[]'::jsonb END, 1, 'stable@sha256:${'a'.repeat(64)}', now() + interval '1 day'
      FROM clusters c CROSS JOIN projects p CROSS JOIN LATERAL (SELECT abs(hashtext(c.name || p.name)) AS h) AS hh`, [stalled]);
    await db.query('VACUUM ANALYZE');
    const n = async (t: string) => Number((await db.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n);
    console.log(`seeded ${await n('clusters')} clusters, ${await n('projects')} Projects, ${await n('targets')} Targets in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await db.end();
  }
}

async function waitReady(url: string, child: ChildProcess, logs: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`hub exited with ${child.exitCode}:\n${logs()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`hub not ready in 60 s:\n${logs()}`);
}

/** ms from navigation start until the counts and the matrix's first page are drawn. */
async function firstView(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(
    () => document.querySelector('.count[data-state="Ready"]') && document.querySelectorAll('table.matrix tbody tr').length > 10 && performance.now(),
    undefined,
    { polling: 'raf', timeout: 30_000 },
  );
  return (await handle.jsonValue()) as number;
}

/** ms from a filter's input event until the matrix's range line ends with "of `expected`". */
async function filtered(page: Page, field: string, value: string, expected: string): Promise<number> {
  return page.evaluate(
    ([name, v, want]) =>
      new Promise<number>((done, fail) => {
        const el = document.querySelector(`[name="${name}"]`)!;
        const range = document.getElementById('matrix-range');
        const t0 = performance.now();
        el.value = v;
        el.dispatchEvent(new Event(el.tagName === 'SELECT' ? 'change' : name === 'labels' ? 'change' : 'input', { bubbles: true }));
        const check = () => {
          if (range?.isConnected && document.getElementById('matrix-range')?.textContent?.endsWith(` of ${want}`)) return done(performance.now() - t0);
          if (performance.now() - t0 > 10_000) return fail(new Error(`filter ${name}=${v}: never showed "${want}"`));
          requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      }),
    [field, value, expected] as const,
  );
}

function stats(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  return `median ${s[Math.floor(s.length / 2)].toFixed(0)} ms, best ${s[0].toFixed(0)} ms, worst ${s[s.length - 1].toFixed(0)} ms (${s.length} rounds)`;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'ui-bench-'));
  const pg = await startPostgres(work);
  let hub: ChildProcess | undefined;
  const browser = await launchBrowser();
  try {
    const port = await freePort();
    let out = '';
    hub = spawn(process.execPath, [join(ROOT, 'dist/apps/hub/src/main.js')], {
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), FLOTILLA_AGENT_PORT: '0', DATABASE_URL: pg.endpoint.url, FLOTILLA_DATA_DIR: join(work, 'hub'), FLOTILLA_ADMIN_TOKEN: TOKEN, FLOTILLA_SCHEDULER: 'off', FLOTILLA_EGRESS_ALLOW_LOOPBACK: 'on', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    hub.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
    hub.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
    const url = `http://127.0.0.1:${port}/`;
    await waitReady(`${url}readyz`, hub, () => out);
    await seed(pg.endpoint.url);

    const cold: number[] = [];
    const warm: number[] = [];
    const filters: Record<string, number[]> = { name: [], group: [], labels: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // a fresh tab is a fresh session: the token goes in before the page's script runs
      const page = await browser.tab();
      await page.addInitScript((t) => sessionStorage.setItem('flotilla.token', t), TOKEN);
      if (round === 0) cold.push(await firstView(page, url));
      else {
        await page.context().clearCookies();
        const cdp = await page.context().newCDPSession(page);
        await cdp.send('Network.clearBrowserCache');
        cold.push(await firstView(page, url));
      }
      warm.push(await firstView(page, url));
      const n = String(round).padStart(2, '0');
      filters.name.push(await filtered(page, 'name', `c-0${n}1`, '10'));
      await filtered(page, 'name', '', '10,000');
      filters.group.push(await filtered(page, 'group', `g-${String(round + 1).padStart(2, '0')}`, '500'));
      await filtered(page, 'group', '', '10,000');
      filters.labels.push(await filtered(page, 'labels', `env=prod,region=r${round % 5}`, '1,000'));
      await page.close();
    }
    console.log(`\nstatus page, ${CLUSTERS.toLocaleString('en')} clusters × 3 Projects, Debian chromium headless, hub and browser on this machine:`);
    console.log(`first meaningful view, cold cache: ${stats(cold)}`);
    console.log(`first meaningful view, warm cache: ${stats(warm)}`);
    console.log(`filtered matrix by name:           ${stats(filters.name)}`);
    console.log(`filtered matrix by group:          ${stats(filters.group)}`);
    console.log(`filtered matrix by labels:         ${stats(filters.labels)}`);
    console.log('goals: first view < 1000 ms, filtered matrix < 300 ms');
  } finally {
    await browser.close();
    hub?.kill('SIGTERM');
    await pg.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
