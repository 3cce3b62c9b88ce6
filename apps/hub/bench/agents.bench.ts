// `npm run bench:agents`: BENCH_AGENTS simulated agents (default 10,000)
// from a separate process, one connection each, against one hub on a real
// PostgreSQL. Prints the time for all to connect and get their assignment
// set, the hub's peak RSS, the time from a new digest to every agent holding
// it (p50, p99) and the reports the hub stored per second. Goals: p99 < 2 s,
// hub RSS < 1 GiB. Each simulated agent reports BENCH_APPLY_MS (default 2000,
// ±50%) after its assignment, as a real one applies first; 0: at once.
// The agents are a Go program (agents-sim-go) by default: here they share the
// hub's two cores, where a real fleet's agents run on machines of their own,
// so the cheaper their messages the less they take from the hub.
// BENCH_SIM=node runs them on Node's grpc-js instead, for comparison.
import { spawn, spawnSync } from 'node:child_process';
import { certificateFingerprint, newAgentKeyRequest } from '@flotilla/agent-protocol';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { writeHeapSnapshot } from 'node:v8';
import { Client } from 'pg';
import { startPostgres } from '../../../test/harness/postgres';
import { AgentCa } from '../src/agents/agent-ca.service';
import { AgentGrpcServer } from '../src/agents/agent-grpc.server';
import { createHubApp } from '../src/app';
import { SchedulerService } from '../src/scheduler/scheduler.service';
import { SchedulerMetrics } from '../src/scheduler/scheduler.metrics';
import { defaultAgentServerConfig, defaultHubConfig, defaultSchedulerConfig } from '../src/config/hub-config';
import type { TagResolver } from '../src/scheduler/sources/tag-resolver';
import { cpuSeconds, postgresCpuSeconds } from './cpu-times';
import { samplePostgres } from './pg-sampler';
import { startProfile } from './profile';
import { reportOf } from '../test/simulated-agent';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const SIM = process.env.BENCH_SIM ?? 'go';
const DIGESTS = Number(process.env.BENCH_DIGESTS ?? 3);
const TOKEN = 'bench-admin-token-0123456789abcdef';
const ROOT = resolve(__dirname, '../../..');

class BenchResolver implements TagResolver {
  digest = `sha256:${'0'.repeat(64)}`;
  /** when a poll first got the current digest: the rest of a digest's time is the hub's fan-out */
  seenAt: number | undefined;
  async resolve(): Promise<string> {
    this.seenAt ??= Date.now();
    return this.digest;
  }

  set(digest: string): void {
    this.digest = digest;
    this.seenAt = undefined;
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-agents-'));
  const pg = await startPostgres(work);
  const resolver = new BenchResolver();
  let peakRss = 0;
  let peakHeap = 0;
  const sample = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 100);
  const app = await createHubApp(
    {
      ...defaultHubConfig(),
      host: '127.0.0.1',
      port: 0,
      dataDir: work,
      databaseUrl: pg.endpoint.url,
      logLevel: 'error',
      adminToken: TOKEN,
      scheduler: { ...defaultSchedulerConfig(), hubId: 'bench', tickMs: 200, sourcePollMs: 300, concurrency: Number(process.env.BENCH_CONCURRENCY ?? 2000), leaseTtlMs: 60_000 },
      agents: { ...defaultAgentServerConfig('127.0.0.1'), port: 0, heartbeatMs: 10_000, heartbeatTimeoutMs: 60_000 },
    },
    { scheduler: { tagResolver: resolver }, announce: () => undefined },
  );
  await app.listen(0, '127.0.0.1');
  const address = `127.0.0.1:${app.get(AgentGrpcServer).port}`;

  // the clusters and their agents' certificates, written straight into the database (the API would take minutes).
  // One key for all: each certificate still names its own cluster, and the hub knows an agent by the certificate's fingerprint
  const db = new Client({ connectionString: pg.endpoint.url });
  await db.connect();
  const ca = app.get(AgentCa);
  const key = await newAgentKeyRequest();
  const identities: string[] = [];
  const signStarted = Date.now();
  for (let i = 0; i < AGENTS; i += 1000) {
    const names = Array.from({ length: Math.min(1000, AGENTS - i) }, (_, j) => `edge-${i + j}`);
    const clusters = (await db.query(`INSERT INTO clusters (name, group_name, mode) SELECT n, 'bench', 'agent' FROM unnest($1::text[]) AS n RETURNING id, name`, [names])).rows as Array<{ id: string; name: string }>;
    const certs = [];
    for (const c of clusters) certs.push((await ca.ca.signAgent(key.csrPem, c, 24 * 3600_000)).pem);
    await db.query(`INSERT INTO agent_links (cluster_id, cert_fingerprint, cert_expires_at) SELECT id, fp, now() + interval '1 day' FROM unnest($1::uuid[], $2::text[]) AS t(id, fp)`, [
      clusters.map((c) => c.id),
      certs.map((p) => certificateFingerprint(p)),
    ]);
    identities.push(...certs.map((certPem) => JSON.stringify({ keyPem: key.keyPem, certPem })));
  }
  const signMs = Date.now() - signStarted;
  const identityFile = join(work, 'identities');
  writeFileSync(identityFile, identities.join('\n'));
  identities.length = 0; // the hub's RSS is measured in this process: its agents' keys are not the hub's
  const caFile = join(work, 'agent-ca.pem');
  writeFileSync(caFile, ca.certPem);

  // CPU seconds of the hub (this process), the simulator and PostgreSQL: which of them a phase waits on
  const pgData = join(work, 'postgres', 'data');
  const cpu = () => ({ hub: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6, sim: cpuSeconds(sim.pid!), pg: postgresCpuSeconds(pgData), ticks: app.get(SchedulerService).completedTicks, at: Date.now() });
  const phases: Array<{ phase: string; from: ReturnType<typeof cpu>; to: ReturnType<typeof cpu> }> = [];
  const sim = spawnSimulator(work, address, identityFile, caFile);
  const events: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: sim.stdout! }).on('line', (l) => {
    events.push(JSON.parse(l) as Record<string, unknown>);
    for (const w of waiters.splice(0)) w();
  });
  const next = (event: string) =>
    new Promise<Record<string, unknown>>((done) => {
      const look = () => {
        const i = events.findIndex((e) => e.event === event);
        if (i >= 0) done(events.splice(i, 1)[0]);
        else waiters.push(look);
      };
      look();
    });

  const beforeConnect = cpu();
  const connected = await next('connected');
  phases.push({ phase: 'connect', from: beforeConnect, to: cpu() });
  const { rss: rssConnected, heapUsed: heapConnected } = process.memoryUsage();
  // under node --expose-gc: what stays of it after a full collection (the connections' live memory, not their garbage)
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const afterGc = gc ? process.memoryUsage() : undefined;
  // BENCH_HEAP_SNAPSHOT=<file>: the hub's heap with every agent connected (what each connection keeps)
  if (process.env.BENCH_HEAP_SNAPSHOT) writeHeapSnapshot(process.env.BENCH_HEAP_SNAPSHOT);
  const res = await fetch(`${await app.getUrl()}/api/v1/projects`.replace('[::1]', '127.0.0.1'), {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', namespace: 'bench', source: { repository: 'oci://registry.example/bench', tag: 'stable' }, targets: { groups: ['bench'] } }),
  });
  if (res.status !== 201) throw new Error(`project: ${res.status} ${await res.text()}`);
  // the Project's first digest stored everywhere before a new one is timed: a digest
  // that lands while the first runs are out measures those runs too (a Target runs once at a time)
  await everyTargetAt(db, resolver.digest);

  // BENCH_PROFILE=<file>: the hub's CPU profile of the digest phase (open it in Chrome DevTools)
  const profile = process.env.BENCH_PROFILE ? await startProfile() : undefined;
  // BENCH_PG_SAMPLE=1: which statements PostgreSQL is running during the digests
  const pgSampler = process.env.BENCH_PG_SAMPLE ? await samplePostgres(pg.endpoint.url) : undefined;
  const rows: Array<{ digest: string; p50: number; p99: number; max: number; reportsPerSecond: number; seenMs: number; byAdvance: number }> = [];
  const claims = app.get(SchedulerMetrics).claims;
  const advanceClaims = async () => (await claims.get()).values.find((v) => v.labels.by === 'advance')?.value ?? 0;
  for (let d = 1; d <= DIGESTS; d++) {
    const digest = `sha256:${String(d).repeat(64).slice(0, 64)}`;
    const runsBefore = Number((await db.query(`SELECT count(*) AS n FROM runs WHERE result = 'Succeeded'`)).rows[0].n);
    const claimedBefore = await advanceClaims();
    const at = Date.now();
    const before = cpu();
    resolver.set(digest);
    sim.stdin!.write(`${JSON.stringify({ digest, at })}\n`);
    const acked = await next('acked');
    await everyTargetAt(db, digest);
    phases.push({ phase: `digest #${d}`, from: before, to: cpu() });
    const stored = Number((await db.query(`SELECT count(*) AS n FROM runs WHERE result = 'Succeeded'`)).rows[0].n) - runsBefore;
    rows.push({ digest: `#${d}`, p50: acked.p50 as number, p99: acked.p99 as number, max: acked.max as number, reportsPerSecond: Math.round(stored / ((Date.now() - at) / 1000)), seenMs: resolver.seenAt! - at, byAdvance: (await advanceClaims()) - claimedBefore });
  }
  clearInterval(sample);
  if (profile) await profile.stop(process.env.BENCH_PROFILE!);
  const pgSamples = await pgSampler?.stop();

  const mib = (b: number) => `${Math.round(b / 1024 / 1024)} MiB`;
  console.log(`\nbench:agents — ${AGENTS} agents (${SIM === 'go' ? 'Go, grpc-go' : 'Node, grpc-js'}), one hub (in this process), PostgreSQL ${pg.endpoint.url.replace(/:[^:@]*@/, ':***@')}; agents report ${process.env.BENCH_APPLY_MS ?? 2000} ms (±50%) after an assignment`);
  console.log(`client certificates signed: ${AGENTS} in ${signMs} ms (${(signMs / AGENTS).toFixed(2)} ms each, inserts included)`);
  console.log(`all connected (mutual TLS) and holding their assignment set: ${connected.ms} ms`);
  console.log(`hub RSS: ${mib(rssConnected)} with all connected, ${mib(peakRss)} peak (goal < 1024 MiB); V8 heap used ${mib(heapConnected)} connected, ${mib(peakHeap)} peak`);
  if (afterGc) console.log(`after a full GC with all connected: RSS ${mib(afterGc.rss)}, V8 heap used ${mib(afterGc.heapUsed)} of ${mib(afterGc.heapTotal)} reserved, external ${mib(afterGc.external)} (array buffers ${mib(afterGc.arrayBuffers)})`);
  else console.log('(run under node --expose-gc for the live memory after a full GC)');
  console.log('| digest | digest→every agent holds it p50 | p99 (goal < 2000 ms) | max | of which the poll (300 ms) | reports stored/s | agent Targets claimed by the advance |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.digest} | ${r.p50} ms | ${r.p99} ms | ${r.max} ms | ${r.seenMs} ms | ${r.reportsPerSecond} | ${r.byAdvance} |`);
  console.log('\nCPU seconds per phase (2 cores: a phase of s seconds has 2·s to give)');
  console.log('| phase | wall | hub | simulator | PostgreSQL | scheduler ticks |');
  console.log('|---|---|---|---|---|---|');
  const f = (n: number) => n.toFixed(1);
  for (const p of phases) console.log(`| ${p.phase} | ${f((p.to.at - p.from.at) / 1000)} s | ${f(p.to.hub - p.from.hub)} | ${f(p.to.sim - p.from.sim)} | ${f(p.to.pg - p.from.pg)} | ${p.to.ticks - p.from.ticks} |`);

  if (pgSamples) {
    console.log('\nPostgreSQL statements running (and what they wait on: cpu, Lock:…, Client:…), sampled every 10 ms during the digests');
    for (const p of pgSamples.slice(0, 15)) console.log(`${String(p.samples).padStart(6)}  ${p.statement}`);
  }

  sim.stdin!.end();
  await new Promise((r) => sim.on('exit', r));
  await db.end();
  await app.close();
  await pg.stop();
  rmSync(work, { recursive: true, force: true });
}

/** The simulated agents' process: the Go program, or with BENCH_SIM=node the Node one. */
function spawnSimulator(work: string, address: string, identityFile: string, caFile: string) {
  if (SIM === 'node') {
    // BENCH_SIM_PROFILE=<dir>: the simulator's CPU profile, written when it exits
    const simProfile = process.env.BENCH_SIM_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SIM_PROFILE}`] : [];
    return spawn(process.execPath, [...simProfile, join(ROOT, 'scripts/run-ts.mjs'), join(__dirname, 'agents-sim.ts'), address, identityFile, caFile], { stdio: ['pipe', 'pipe', 'inherit'] });
  }
  if (SIM !== 'go') throw new Error(`BENCH_SIM=${SIM}: go or node`);
  const build = spawnSync(process.execPath, [join(__dirname, 'agents-sim-go/build.mjs')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (build.status !== 0) throw new Error(`the Go simulator did not build (exit ${build.status})`);
  const binary = build.stdout.trim().split('\n').pop()!;
  const templateFile = join(work, 'report-template.json');
  writeFileSync(templateFile, reportTemplate());
  return spawn(binary, [address, identityFile, caFile, templateFile], { stdio: ['pipe', 'pipe', 'inherit'] });
}

/**
 * The engine's reports of a successful apply and a successful deletion, one per line, for an assignment of
 * markers the Go simulator fills in (agents-sim-go/report.go).
 */
function reportTemplate(): string {
  const marked = {
    targetId: '', generation: 0, projectName: '__PROJECT_NAME__', projectNamespace: '__PROJECT_NAMESPACE__', repository: '__SOURCE__', tag: '__TAG__', path: '',
    digest: '__DIGEST__', serviceAccountName: '', annotations: {}, clusterName: '__CLUSTER_NAME__', clusterGroup: '__CLUSTER_GROUP__', intervalSeconds: 600, suspend: false, delete: false, registryCredentials: undefined,
  };
  const line = (deleting: boolean) => {
    const report = reportOf({ ...marked, delete: deleting }, true);
    return JSON.stringify(report).replaceAll(report.startedAt, '__NOW__');
  };
  return `${line(false)}\n${line(true)}\n`;
}

/** Until every agent's report of `digest` is stored; fails past BENCH_STORE_TIMEOUT_MS (5 minutes) rather than wait forever on reports the hub refused. */
async function everyTargetAt(db: Client, digest: string): Promise<void> {
  const deadline = Date.now() + Number(process.env.BENCH_STORE_TIMEOUT_MS ?? 300_000);
  for (;;) {
    const n = Number((await db.query(`SELECT count(*) AS n FROM targets WHERE last_applied_revision = $1`, [`stable@${digest}`])).rows[0].n);
    if (n >= AGENTS) return;
    if (Date.now() > deadline) throw new Error(`reports of ${digest} stored for ${n} of ${AGENTS} Targets before the deadline (BENCH_STORE_TIMEOUT_MS)`);
    // not more often: at 10,000 agents this count was a tenth of PostgreSQL's work during a digest
    await new Promise((r) => setTimeout(r, 500));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
