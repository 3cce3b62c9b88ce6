// `npm run bench:api`: the compiled hub as a process on a real PostgreSQL
// holding BENCH_CLUSTERS clusters (default 10,000), one Project targeting
// all of them (a Target each) and BENCH_RUNS_PER_TARGET runs per Target
// (default 100: 1,000,000 runs), plus events, and BENCH_TENANTS tenants
// (default 50), each reaching one of the 20 cluster groups with a Project
// there (a Target on each of its 500 clusters). Each read route is driven by
// autocannon on loopback at BENCH_RATE requests/s (default 1000) for
// BENCH_SECONDS, then without a rate limit for its ceiling. Prints, per
// route, the throughput reached, p50/p99 latency and the hub's peak RSS,
// beside a bare Node HTTP server answering a fixed JSON body as the
// reference measured in the same run (the floor this machine allows). Every
// route runs twice: with a global admin token (unscoped) and with a viewer
// token of one tenant (scoped: its Projects, the clusters it may target).
import autocannon from 'autocannon';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../../test/harness/ports';
import { startPostgres } from '../../../test/harness/postgres';
import { cpuSeconds, postgresCpuSeconds } from './cpu-times';
import { explainSlowStatements } from './pg-sampler';

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 10_000);
const RUNS_PER_TARGET = Number(process.env.BENCH_RUNS_PER_TARGET ?? 100);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const TENANTS = Number(process.env.BENCH_TENANTS ?? 50);
/** the tenant whose viewer drives the scoped routes: its Project is app-07, its clusters group g-7 */
const SCOPED_TENANT = 7;
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Extra Node flags for the hub (e.g. --cpu-prof) and a substring choosing routes, to profile one. */
const HUB_NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const ONLY = process.env.BENCH_ONLY;
/** Log statements slower than this many ms and summarize them at the end. */
const SLOW_MS = process.env.BENCH_SLOW_MS;
/** PostgreSQL's plans of the statements slower than this many ms, per route, summed and written beside the route's name. */
const EXPLAIN_MS = process.env.BENCH_PG_EXPLAIN_MS;
const TOKEN = 'bench-admin-token-0123456789abcdef';
const ROOT = resolve(__dirname, '../../..');

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function waitReady(url: string, child: ChildProcess, logs: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${logs()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not ready in 60 s:\n${logs()}`);
}

function startProcess(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; logs: () => string } {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  return { child, logs: () => out };
}

/** The reference: Node's own HTTP server answering the same size of JSON, nothing else. */
const BARE_SERVER = `
const body = JSON.stringify({ items: Array.from({ length: 50 }, (_, i) => ({ name: 'c-' + i, group: 'g', labels: { env: 'prod' } })), total: 10000 });
require('node:http').createServer((req, res) => { res.setHeader('content-type', 'application/json'); res.end(body); }).listen(Number(process.env.PORT), '127.0.0.1');
`;

async function seed(databaseUrl: string): Promise<void> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const started = Date.now();
    await db.query(`INSERT INTO clusters (name, group_name, labels, mode, reachable, server_version)
      SELECT 'c-' || lpad(i::text, 5, '0'), 'g-' || (i % 20),
             jsonb_build_object('env', CASE WHEN i % 2 = 0 THEN 'prod' ELSE 'stage' END, 'region', 'r' || (i % 5)),
             'agent', true, 'v1.36.3'
      FROM generate_series(1, $1::int) i`, [CLUSTERS]);
    const { rows } = await db.query(`INSERT INTO projects (name, tenant, namespace, source_repository, source_tag, service_account_name, target_selector, source_digest)
      VALUES ('fleet', 'default', 'apps', 'oci://registry.example.com/fleet', 'stable', 'fleet', '{"labelSelector": {"matchLabels": {}}}', 'sha256:${'a'.repeat(64)}') RETURNING id`);
    const projectId = rows[0].id as string;
    const ready = JSON.stringify([{ type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: 'Applied revision stable@sha256:aaaa', lastTransitionTime: new Date().toISOString() }]);
    await db.query(`INSERT INTO targets (project_id, cluster_id, phase, conditions, observed_generation, last_applied_revision, next_run_at)
      SELECT $1, id, 'Ready', $2::jsonb, 1, 'stable@sha256:${'a'.repeat(64)}', now() + interval '1 day' FROM clusters`, [projectId, ready]);
    // the tenants, each with its group of clusters and a Project on all of them
    await db.query(`INSERT INTO tenants (name, destinations, namespaces, service_accounts, repositories)
      SELECT 'tenant-' || lpad(i::text, 2, '0'), jsonb_build_object('groups', jsonb_build_array('g-' || (i % 20))), '["apps-*"]', '["*"]', jsonb_build_array('oci://registry.example.com/tenant-' || i)
      FROM generate_series(0, $1::int - 1) i`, [TENANTS]);
    await db.query(`INSERT INTO projects (name, tenant, namespace, source_repository, source_tag, service_account_name, target_selector, source_digest)
      SELECT 'app-' || lpad(i::text, 2, '0'), 'tenant-' || lpad(i::text, 2, '0'), 'apps-' || i, 'oci://registry.example.com/tenant-' || i || '/app', 'stable', 'app',
             jsonb_build_object('groups', jsonb_build_array('g-' || (i % 20))), 'sha256:${'a'.repeat(64)}'
      FROM generate_series(0, $1::int - 1) i`, [TENANTS]);
    await db.query(`INSERT INTO targets (project_id, cluster_id, phase, conditions, observed_generation, last_applied_revision, next_run_at)
      SELECT p.id, c.id, 'Ready', $1::jsonb, 1, 'stable@sha256:${'a'.repeat(64)}', now() + interval '1 day'
      FROM projects p JOIN clusters c ON p.target_selector->'groups' ? c.group_name WHERE p.tenant <> 'default'`, [ready]);
    const instances = JSON.stringify([{ name: 'web', namespace: 'apps', component: 'app', action: 'applied', ready: true, durationMs: 812, counts: { created: 0, configured: 1, unchanged: 6, deleted: 0, skipped: 0 }, objects: ['Deployment/apps/web', 'Service/apps/web'] }]);
    await db.query(`INSERT INTO runs (target_id, generation, revision, started_at, finished_at, result, instances, trigger, lease_owner, duration_ms, errors)
      SELECT t.id, 1, 'stable@sha256:${'a'.repeat(64)}', now() - g * interval '10 minutes', now() - g * interval '10 minutes' + interval '2 seconds',
             'Succeeded', $1::jsonb, 'Interval', 'bench', 2000, '[]'
      FROM targets t, generate_series(1, $2::int) g WHERE t.project_id = $3`, [instances, RUNS_PER_TARGET, projectId]);
    await db.query(`INSERT INTO events (project_id, cluster_name, type, reason, message, created_at)
      SELECT $1, 'c-' || lpad((1 + i % $3::int)::text, 5, '0'), 'Normal', 'InstanceApplied', 'instance web applied', now() - i * interval '1 second'
      FROM generate_series(1, $2::int) i`, [projectId, EVENTS, CLUSTERS]);
    // steady state: statistics and the visibility map (index-only counts), as autovacuum keeps them
    await db.query('VACUUM ANALYZE');
    if (SLOW_MS) {
      await db.query(`ALTER SYSTEM SET log_min_duration_statement = ${Number(SLOW_MS)}`);
      await db.query('SELECT pg_reload_conf()');
    }
    const count = async (table: string) => Number((await db.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
    console.log(`seeded ${await count('clusters')} clusters, ${await count('tenants')} tenants, ${await count('projects')} Projects, ${await count('targets')} Targets, ${await count('runs')} runs, ${await count('events')} events in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await db.end();
  }
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  peakRss: number;
  /** CPU ms per request in the hub and in PostgreSQL: where the time goes, whatever else the machine does */
  hubCpu: number;
  dbCpu: number;
  /** the same for the load generator (this process): its share of the machine's two cores */
  loadCpu: number;
}

/** `pgData`: the bench's PostgreSQL, whose server and sessions (those that ended too) count as the database's CPU. */
async function drive(url: string, pid: number, pgData: string, rate: number | undefined, seconds: number, token = TOKEN): Promise<Result> {
  let peakRss = rssMiB(pid);
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMiB(pid))), 100);
  const [hubBefore, dbBefore, loadBefore] = [cpuSeconds(pid), postgresCpuSeconds(pgData), process.cpuUsage()];
  try {
    const r = await autocannon({
      url,
      connections: CONNECTIONS,
      duration: seconds,
      headers: { authorization: `Bearer ${token}` },
      ...(rate ? { overallRate: rate } : {}),
    });
    const requests = Math.max(r.requests.total, 1);
    const hubCpu = ((cpuSeconds(pid) - hubBefore) * 1000) / requests;
    const dbCpu = ((postgresCpuSeconds(pgData) - dbBefore) * 1000) / requests;
    const load = process.cpuUsage(loadBefore);
    const loadCpu = (load.user + load.system) / 1000 / requests;
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx, peakRss, hubCpu, dbCpu, loadCpu };
  } finally {
    clearInterval(sampler);
  }
}

/** Mean duration and count per statement PostgreSQL logged as slow. */
function slowStatements(logFile: string): void {
  const byStatement = new Map<string, number[]>();
  for (const m of readFileSync(logFile, 'utf8').matchAll(/duration: ([\d.]+) ms\s+(?:execute [^:]*|statement): (.*)/g)) {
    const key = m[2].replace(/\$\d+/g, '$').slice(0, 160);
    byStatement.set(key, [...(byStatement.get(key) ?? []), Number(m[1])]);
  }
  const rows = [...byStatement].sort((a, b) => b[1].reduce((x, y) => x + y, 0) - a[1].reduce((x, y) => x + y, 0));
  console.log(`\nstatements slower than ${SLOW_MS} ms:`);
  for (const [sql, ms] of rows.slice(0, 12)) console.log(`  ${ms.length} × mean ${(ms.reduce((x, y) => x + y, 0) / ms.length).toFixed(1)} ms: ${sql}`);
}

const ROUTES: Array<[string, string]> = [
  ['clusters: list', '/api/v1/clusters'],
  ['clusters: list by label', '/api/v1/clusters?labelSelector=env%3Dprod,region%3Dr1'],
  ['clusters: list, page 100', '/api/v1/clusters?offset=5000'],
  ['clusters: get', '/api/v1/clusters/c-05000'],
  ['projects: list', '/api/v1/projects'],
  ['projects: get', '/api/v1/projects/fleet'],
  ['targets: list', '/api/v1/projects/fleet/targets'],
  ['targets: get', '/api/v1/projects/fleet/targets/c-05000'],
  ['runs: list', '/api/v1/projects/fleet/targets/c-05000/runs'],
  ['events: list', '/api/v1/projects/fleet/events'],
  ['tokens: list', '/api/v1/tokens'],
  ['fleet: summary', '/api/v1/fleet/summary'],
  ['fleet: matrix', '/api/v1/fleet/matrix'],
  ['fleet: matrix by name', '/api/v1/fleet/matrix?name=c-050'],
  ['fleet: matrix by label', '/api/v1/fleet/matrix?labelSelector=env%3Dprod,region%3Dr1&offset=500'],
];

// The same reads by a viewer of one tenant: what it may see (cluster c-00007 is in its group g-7).
const app = `app-${String(SCOPED_TENANT).padStart(2, '0')}`;
const SCOPED_ROUTES: Array<[string, string]> = [
  ['clusters: list', '/api/v1/clusters'],
  ['clusters: list by label', '/api/v1/clusters?labelSelector=env%3Dprod,region%3Dr1'],
  ['clusters: get', '/api/v1/clusters/c-00007'],
  ['projects: list', '/api/v1/projects'],
  ['projects: get', `/api/v1/projects/${app}`],
  ['targets: list', `/api/v1/projects/${app}/targets`],
  ['targets: get', `/api/v1/projects/${app}/targets/c-00007`],
  ['runs: list', `/api/v1/projects/${app}/targets/c-00007/runs`],
  ['events: list', `/api/v1/projects/${app}/events`],
  ['fleet: summary', '/api/v1/fleet/summary'],
  ['fleet: matrix', '/api/v1/fleet/matrix'],
  ['fleet: matrix by label', '/api/v1/fleet/matrix?labelSelector=env%3Dprod,region%3Dr1'],
  ['audit: list', '/api/v1/audit'],
];

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'api-bench-'));
  const pg = await startPostgres(work);
  const pgData = join(work, 'postgres', 'data');
  const processes: ChildProcess[] = [];
  try {
    // before the hub connects: auto_explain is loaded into each new session
    const explain = EXPLAIN_MS ? await explainSlowStatements(pg.endpoint.url, pg.logFile, Number(EXPLAIN_MS)) : undefined;
    const barePort = await freePort();
    const bare = startProcess(['-e', BARE_SERVER], { PORT: String(barePort) });
    processes.push(bare.child);
    const bareUrl = `http://127.0.0.1:${barePort}/`;
    await waitReady(bareUrl, bare.child, bare.logs);

    const port = await freePort();
    const hub = startProcess([...HUB_NODE_ARGS, join(ROOT, 'dist/apps/hub/src/main.js')], {
      HOST: '127.0.0.1',
      PORT: String(port),
      FLOTILLA_AGENT_PORT: '0',
      FLOTILLA_EGRESS_ALLOW_LOOPBACK: 'on',
      DATABASE_URL: pg.endpoint.url,
      FLOTILLA_DATA_DIR: join(work, 'hub'),
      FLOTILLA_ADMIN_TOKEN: TOKEN,
      FLOTILLA_SCHEDULER: 'off',
      LOG_LEVEL: 'warn',
    });
    processes.push(hub.child);
    const url = `http://127.0.0.1:${port}`;
    await waitReady(`${url}/readyz`, hub.child, hub.logs);
    await seed(pg.endpoint.url);
    const idleRss = rssMiB(hub.child.pid!);

    const ref = await drive(bareUrl, bare.child.pid!, pgData, RATE, SECONDS);
    const refMax = await drive(bareUrl, bare.child.pid!, pgData, undefined, Math.max(3, SECONDS / 2));
    console.log(`\nreference, bare Node HTTP server: ${ref.rps.toFixed(0)} req/s at ${RATE} offered, p50 ${ref.p50} ms, p99 ${ref.p99} ms, ${ref.hubCpu.toFixed(2)} CPU ms/req (load generator ${ref.loadCpu.toFixed(2)}); ceiling ${refMax.rps.toFixed(0)} req/s`);
    console.log(`hub idle RSS after seeding: ${idleRss.toFixed(0)} MiB\n`);
    console.log(`${'route'.padEnd(28)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'p99/ref'.padStart(8)} ${'errors'.padStart(7)} ${'ceiling'.padStart(8)} ${'×ref'.padStart(6)} ${'RSS MiB'.padStart(8)} ${'hub ms/req'.padStart(10)} ${'db ms/req'.padStart(9)} ${'load ms/req'.padStart(11)}`);
    const scopedToken = (await (await fetch(`${url}/api/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench-tenant-viewer', role: 'viewer', tenant: `tenant-${String(SCOPED_TENANT).padStart(2, '0')}` }),
    })).json()) as { token: string };
    const runs: Array<[string, Array<[string, string]>, string]> = [
      ['unscoped (global admin)', ROUTES, TOKEN],
      [`scoped (viewer of tenant-${String(SCOPED_TENANT).padStart(2, '0')})`, SCOPED_ROUTES, scopedToken.token],
    ];
    for (const [label, routes, token] of runs) {
      console.log(`-- ${label}`);
      for (const [name, path] of routes.filter(([n]) => !ONLY || n.includes(ONLY))) {
        const check = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
        if (!check.ok) throw new Error(`${path}: ${check.status} ${await check.text()}`);
        await drive(`${url}${path}`, hub.child.pid!, pgData, RATE, 2, token); // warm up
        await explain?.start();
        const at = await drive(`${url}${path}`, hub.child.pid!, pgData, RATE, SECONDS, token);
        const plans = await explain?.stop(join(tmpdir(), `api-bench-plans-${label.split(' ')[0]}-${name.replace(/\W+/g, '-')}.log`));
        const max = await drive(`${url}${path}`, hub.child.pid!, pgData, undefined, Math.max(3, SECONDS / 2), token);
        console.log(
          `${name.padEnd(28)} ${at.rps.toFixed(0).padStart(7)} ${String(at.p50).padStart(7)} ${String(at.p99).padStart(7)} ${(at.p99 / Math.max(ref.p99, 1)).toFixed(1).padStart(8)} ` +
            `${String(at.errors + max.errors).padStart(7)} ${max.rps.toFixed(0).padStart(8)} ${(max.rps / refMax.rps).toFixed(2).padStart(6)} ${Math.max(at.peakRss, max.peakRss).toFixed(0).padStart(8)} ` +
            `${at.hubCpu.toFixed(2).padStart(10)} ${at.dbCpu.toFixed(2).padStart(9)} ${at.loadCpu.toFixed(2).padStart(11)}`,
        );
        for (const p of plans?.slice(0, 3) ?? []) console.log(`    ${p.count} × ${(p.totalMs / p.count).toFixed(2)} ms: ${p.statement}`);
      }
    }
    if (SLOW_MS) slowStatements(join(work, 'postgres.log'));
    console.log(`\ngoal: ${RATE} req/s with p99 < 50 ms on every route, RSS < 512 MiB (${CONNECTIONS} connections, load generator on the same machine)`);
  } finally {
    for (const p of processes) p.kill('SIGTERM');
    await Promise.all(processes.map((p) => (p.exitCode === null ? new Promise((r) => p.once('exit', r)) : undefined)));
    await pg.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
