// `npm run bench:agents`: BENCH_AGENTS simulated agents (default 10,000)
// from a separate process, one connection each, against one hub as
// `npm start` runs it (dist/apps/hub/src/main.js, a process of its own) on a
// real PostgreSQL and registry. Prints the time for all to connect and get
// their assignment set, the hub's RSS (read from /proc: only the hub, none of
// the bench), the time from a new digest to every agent holding it (p50,
// p99) and the reports the hub stored per second. Goals: p99 < 2 s, hub RSS
// < 1 GiB. A digest is a push of the Project's tag followed by the signed
// CDEvent `artifact published` a CI step sends (the hub's receiver), so the
// timing starts when the tag moved. Each simulated agent reports
// BENCH_APPLY_MS (default 2000, ±50%) after its assignment, as a real one
// applies first; 0: at once.
// The agents are a Go program (agents-sim-go) by default: here they share the
// hub's two cores, where a real fleet's agents run on machines of their own,
// so the cheaper their messages the less they take from the hub.
// BENCH_SIM=node runs them on Node's grpc-js instead, for comparison.
import { spawn, spawnSync } from 'node:child_process';
import { certificateFingerprint, newAgentKeyRequest } from '@flotilla/agent-protocol';
import { RegistryClient } from '@flotilla/oci';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { freePort } from '../../../test/harness/ports';
import { startPostgres } from '../../../test/harness/postgres';
import { startRegistry } from '../../../test/harness/registry';
import { HubProcess } from '../../../test/e2e/support/hub-process';
import { publishProject } from '../../../test/e2e/support/publish';
import { CertificateAuthority } from '../src/agents/certificate-authority';
import { sendArtifactPublished } from './artifact-published';
import { cpuSeconds, postgresCpuSeconds, residentBytes } from './cpu-times';
import { samplePostgres } from './pg-sampler';
import { reportOf } from '../test/simulated-agent';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const SIM = process.env.BENCH_SIM ?? 'go';
const DIGESTS = Number(process.env.BENCH_DIGESTS ?? 3);
const TOKEN = 'bench-admin-token-0123456789abcdef';
const EVENTS_SECRET = 'bench-events-secret-0123456789abcdef';
const ROOT = resolve(__dirname, '../../..');
/** What the bench started, stopped in reverse when it ends, failed or not (a hub left behind holds a gigabyte). */
const teardown: Array<() => Promise<unknown> | void> = [];

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-agents-'));
  teardown.push(() => rmSync(work, { recursive: true, force: true }));
  const pg = await startPostgres(work);
  teardown.push(() => pg.stop());
  const registry = await startRegistry(work, 'registry');
  teardown.push(() => registry.stop());
  const image = { registry: registry.endpoint.host, repository: 'bench/project' };
  const repository = `oci://${image.registry}/${image.repository}`;
  const oci = new RegistryClient();
  // each revision its own content: its own digest under the tag
  const pushRevision = (n: number) => publishProject(oci, repository, { 'bench.cue': `// revision ${n}\n` }, 'stable');
  let digest = await pushRevision(0);

  // the operator's agent CA (files the hub reads): the bench signs the agents' certificates with it, outside the hub
  const ca = await CertificateAuthority.create('Flotilla bench agent CA');
  writeFileSync(join(work, 'agent-ca.pem'), ca.certPem);
  writeFileSync(join(work, 'agent-ca.key'), ca.keyPem, { mode: 0o600 });
  const [agentPort, eventsPort] = [await freePort(), await freePort()];
  // BENCH_PROFILE=<dir>: the hub's CPU profile of the whole run, written when it stops (open it in Chrome DevTools)
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const hub = new HubProcess(
    'bench',
    {
      DATABASE_URL: pg.endpoint.url,
      LOG_LEVEL: 'warn',
      FLOTILLA_ADMIN_TOKEN: TOKEN,
      FLOTILLA_AGENT_PORT: String(agentPort),
      FLOTILLA_AGENT_CA_CERT_FILE: join(work, 'agent-ca.pem'),
      FLOTILLA_AGENT_CA_KEY_FILE: join(work, 'agent-ca.key'),
      FLOTILLA_AGENT_HEARTBEAT: '10s',
      FLOTILLA_AGENT_HEARTBEAT_TIMEOUT: '60s',
      FLOTILLA_LEASE_TTL: '60s',
      FLOTILLA_SCHEDULER_TICK: '200ms',
      // the CDEvent resolves each new digest: no poll in between to blur when
      FLOTILLA_SOURCE_POLL_INTERVAL: '1h',
      FLOTILLA_EVENTS_PORT: String(eventsPort),
      FLOTILLA_EVENTS_SECRETS: EVENTS_SECRET,
    },
    profile,
  );
  teardown.push(() => rmSync(hub.dataDir, { recursive: true, force: true }), () => hub.stop());
  const hubUrl = await hub.url;
  const hubPid = hub.pid!;

  // the hub's highest RSS in each phase, sampled every 100 ms
  const peaks: Array<{ phase: string; rss: number }> = [];
  const enter = (phase: string) => peaks.push({ phase, rss: 0 });
  enter('start');
  const sample = setInterval(() => {
    const peak = peaks[peaks.length - 1];
    peak.rss = Math.max(peak.rss, residentBytes(hubPid));
  }, 100);

  // the clusters and their agents' certificates, written straight into the database (the API would take minutes).
  // One key for all: each certificate still names its own cluster, and the hub knows an agent by the certificate's fingerprint
  const db = new Client({ connectionString: pg.endpoint.url });
  await db.connect();
  teardown.push(() => db.end());
  const key = await newAgentKeyRequest();
  const identities: string[] = [];
  for (let i = 0; i < AGENTS; i += 1000) {
    const names = Array.from({ length: Math.min(1000, AGENTS - i) }, (_, j) => `edge-${i + j}`);
    const clusters = (await db.query(`INSERT INTO clusters (name, group_name, mode) SELECT n, 'bench', 'agent' FROM unnest($1::text[]) AS n RETURNING id, name`, [names])).rows as Array<{ id: string; name: string }>;
    const certs = [];
    for (const c of clusters) certs.push((await ca.signAgent(key.csrPem, c, 24 * 3600_000)).pem);
    await db.query(`INSERT INTO agent_links (cluster_id, cert_fingerprint, cert_expires_at) SELECT id, fp, now() + interval '1 day' FROM unnest($1::uuid[], $2::text[]) AS t(id, fp)`, [
      clusters.map((c) => c.id),
      certs.map((p) => certificateFingerprint(p)),
    ]);
    identities.push(...certs.map((certPem) => JSON.stringify({ keyPem: key.keyPem, certPem })));
  }
  const identityFile = join(work, 'identities');
  writeFileSync(identityFile, identities.join('\n'));
  const rssIdle = residentBytes(hubPid);

  // CPU seconds of the hub, the simulator and PostgreSQL: which of them a phase waits on
  const pgData = join(work, 'postgres', 'data');
  // with the hub's metrics of the same moment: its ticks, and the Targets its advance claimed
  const measure = async () => {
    const metric = await scrapeMetrics(hubUrl);
    return { hub: cpuSeconds(hubPid), sim: cpuSeconds(sim.pid!), pg: postgresCpuSeconds(pgData), ticks: metric('flotilla_scheduler_ticks_total'), advanceClaims: metric('flotilla_scheduler_claims_total', 'by="advance"'), at: Date.now() };
  };
  const phases: Array<{ phase: string; from: Awaited<ReturnType<typeof measure>>; to: Awaited<ReturnType<typeof measure>> }> = [];
  const sim = spawnSimulator(work, `127.0.0.1:${agentPort}`, identityFile, join(work, 'agent-ca.pem'));
  teardown.push(() => void sim.kill());
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

  enter('connect');
  const beforeConnect = await measure();
  const connected = await next('connected');
  phases.push({ phase: 'connect', from: beforeConnect, to: await measure() });
  const rssConnected = residentBytes(hubPid);
  const metric = await scrapeMetrics(hubUrl);
  const heapConnected = { used: metric('nodejs_heap_size_used_bytes'), total: metric('nodejs_heap_size_total_bytes') };

  enter('first rollout');
  const res = await fetch(`${hubUrl}/api/v1/projects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', namespace: 'bench', source: { repository, tag: 'stable' }, targets: { groups: ['bench'] } }),
  });
  if (res.status !== 201) throw new Error(`project: ${res.status} ${await res.text()}`);
  // the Project's first digest stored everywhere before a new one is timed: a digest
  // that lands while the first runs are out measures those runs too (a Target runs once at a time)
  await everyTargetAt(db, digest);
  enter('digests');

  // BENCH_PG_SAMPLE=1: which statements PostgreSQL is running during the digests
  const pgSampler = process.env.BENCH_PG_SAMPLE ? await samplePostgres(pg.endpoint.url) : undefined;
  const rows: Array<{ digest: string; p50: number; p99: number; max: number; reportsPerSecond: number; resolvedMs: number; byAdvance: number }> = [];
  for (let d = 1; d <= DIGESTS; d++) {
    const runsBefore = Number((await db.query(`SELECT count(*) AS n FROM runs WHERE result = 'Succeeded'`)).rows[0].n);
    const before = await measure();
    digest = await pushRevision(d);
    const at = Date.now();
    sim.stdin!.write(`${JSON.stringify({ digest, at })}\n`);
    await sendArtifactPublished(eventsPort, EVENTS_SECRET, image, 'stable');
    const acked = await next('acked');
    await everyTargetAt(db, digest);
    const after = await measure();
    phases.push({ phase: `digest #${d}`, from: before, to: after });
    const stored = Number((await db.query(`SELECT count(*) AS n FROM runs WHERE result = 'Succeeded'`)).rows[0].n) - runsBefore;
    // when the hub resolved the tag on the CDEvent
    const resolved = (await db.query(`SELECT source_checked_at AS t FROM projects WHERE name = 'bench' AND source_digest = $1`, [digest])).rows[0]?.t as Date | undefined;
    rows.push({ digest: `#${d}`, p50: acked.p50 as number, p99: acked.p99 as number, max: acked.max as number, reportsPerSecond: Math.round(stored / ((Date.now() - at) / 1000)), resolvedMs: resolved ? resolved.getTime() - at : NaN, byAdvance: after.advanceClaims - before.advanceClaims });
  }
  clearInterval(sample);
  const pgSamples = await pgSampler?.stop();

  const mib = (b: number) => `${Math.round(b / 1024 / 1024)} MiB`;
  console.log(`\nbench:agents — ${AGENTS} agents (${SIM === 'go' ? 'Go, grpc-go' : 'Node, grpc-js'}), one hub (dist, its own process), PostgreSQL ${pg.endpoint.url.replace(/:[^:@]*@/, ':***@')}; agents report ${process.env.BENCH_APPLY_MS ?? 2000} ms (±50%) after an assignment`);
  console.log(`all connected (mutual TLS) and holding their assignment set: ${connected.ms} ms`);
  const peakRss = Math.max(...peaks.filter((p) => p.phase !== 'start').map((p) => p.rss));
  console.log(`hub RSS: ${mib(rssIdle)} before the agents, ${mib(rssConnected)} with all connected, ${mib(peakRss)} peak serving them (goal < 1024 MiB); V8 heap used ${mib(heapConnected.used)} of ${mib(heapConnected.total)} with all connected`);
  console.log(`hub RSS peaks by phase: ${peaks.map((p) => `${p.phase} ${mib(p.rss)}`).join(', ')}`);
  console.log('| digest | digest→every agent holds it p50 | p99 (goal < 2000 ms) | max | of which the hub resolving the tag | reports stored/s | agent Targets claimed by the advance |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.digest} | ${r.p50} ms | ${r.p99} ms | ${r.max} ms | ${r.resolvedMs} ms | ${r.reportsPerSecond} | ${r.byAdvance} |`);
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
}

/** The hub's /metrics read once: a sample's value by name (and labels among its labels when given); 0 when absent. */
async function scrapeMetrics(hubUrl: string): Promise<(name: string, labels?: string) => number> {
  const lines = (await (await fetch(`${hubUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text()).split('\n');
  return (name, labels) => {
    for (const line of lines) {
      if (!line.startsWith(name)) continue;
      const m = /^(\w+)(\{[^}]*\})? (\S+)$/.exec(line);
      if (m && m[1] === name && (!labels || (m[2] ?? '').includes(labels))) return Number(m[3]);
    }
    return 0;
  };
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

async function tearDown(): Promise<void> {
  for (const step of teardown.reverse()) await step();
}

main().then(tearDown, async (err: unknown) => {
  console.error(err);
  await tearDown().catch((e: unknown) => console.error(e));
  process.exit(1);
});
