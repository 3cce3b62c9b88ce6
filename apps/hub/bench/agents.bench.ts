// `npm run bench:agents`: BENCH_AGENTS simulated agents (default 10,000)
// from a separate process, one connection each, spread evenly over
// BENCH_REPLICAS hub replicas (default 2) as `npm start` runs them
// (dist/apps/hub/src/main.js, a process each) on one real PostgreSQL and
// registry. Prints the time for all to connect and get their assignment set,
// each replica's RSS (read from /proc: only that hub, none of the bench) and
// CPU per digest, the time from a new digest to every agent holding it (p50,
// p99, for every digest) and the reports the hub stored per second. Goals:
// p99 < 2 s for every digest, each replica's RSS < 1 GiB at its peak (with
// more than one replica), 2,000 reports stored per second. A digest is a push of the Project's tag followed by the signed
// CDEvent `artifact published` a CI step sends (the hub's receiver), so the
// timing starts when the tag moved. Each simulated agent reports
// BENCH_APPLY_MS (default 2000, ±50%) after its assignment, as a real one
// applies first; 0: at once.
// The agents are a Go program (agents-sim-go) by default: here they share the
// hub's two cores, where a real fleet's agents run on machines of their own,
// so the cheaper their messages the less they take from the hub.
// BENCH_SIM=node runs them on Node's grpc-js instead, for comparison.
// Before the hub, the same agents connect to the transport floor
// (transport-floor.ts: the agent service on grpc-js with the hub's TLS and
// options and no hub work); its RSS per agent is the reference the hub's is
// set against.
import { certificateFingerprint, newAgentKeyRequest } from '@flotilla/agent-protocol';
import { RegistryClient } from '@flotilla/oci';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../../test/harness/ports';
import { startPostgres } from '../../../test/harness/postgres';
import { startRegistry } from '../../../test/harness/registry';
import { HubProcess } from '../../../test/e2e/support/hub-process';
import { publishProject } from '../../../test/e2e/support/publish';
import { CertificateAuthority } from '../src/agents/certificate-authority';
import { sendArtifactPublished } from './artifact-published';
import { cpuSeconds, postgresCpuSeconds, residentBytes } from './cpu-times';
import { explainSlowStatements, samplePostgres } from './pg-sampler';
import { prepareSimulator } from './agents-simulator';
import { measureTransportFloor } from './transport-floor-measure';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const REPLICAS = Number(process.env.BENCH_REPLICAS ?? 2);
const SIM = process.env.BENCH_SIM ?? 'go';
const DIGESTS = Number(process.env.BENCH_DIGESTS ?? 3);
const TOKEN = 'bench-admin-token-0123456789abcdef';
const EVENTS_SECRET = 'bench-events-secret-0123456789abcdef';
/** What the bench started, stopped in reverse when it ends, failed or not (a hub left behind holds a gigabyte). */
const teardown: Array<() => Promise<unknown> | void> = [];

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-agents-'));
  teardown.push(() => rmSync(work, { recursive: true, force: true }));
  const pg = await startPostgres(work);
  teardown.push(() => pg.stop());
  // BENCH_PG_EXPLAIN_MS=<ms>: the plans of statements slower than that during the digests
  const explainMs = process.env.BENCH_PG_EXPLAIN_MS;
  const explainer = explainMs ? await explainSlowStatements(pg.endpoint.url, pg.logFile, Number(explainMs)) : undefined;
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
  const [caCertFile, caKeyFile] = [join(work, 'agent-ca.pem'), join(work, 'agent-ca.key')];
  writeFileSync(caCertFile, ca.certPem);
  writeFileSync(caKeyFile, ca.keyPem, { mode: 0o600 });
  const agentPorts: number[] = [];
  for (let r = 0; r < REPLICAS; r++) agentPorts.push(await freePort());
  const eventsPort = await freePort();
  // BENCH_PROFILE=<dir>: the hub's CPU profile of the whole run, written when it stops (open it in Chrome DevTools)
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  // BENCH_HUB_FLAGS='--flag …': more node flags for the hub (V8 heap settings, --heapsnapshot-signal=SIGUSR2)
  const hubFlags = [...profile, ...(process.env.BENCH_HUB_FLAGS ?? '').split(' ').filter(Boolean)];
  const hubs = agentPorts.map(
    (agentPort, r) =>
      new HubProcess(
        `bench-${r}`,
        {
          DATABASE_URL: pg.endpoint.url,
          LOG_LEVEL: 'warn',
          FLOTILLA_ADMIN_TOKEN: TOKEN,
          FLOTILLA_AGENT_PORT: String(agentPort),
          FLOTILLA_AGENT_CA_CERT_FILE: caCertFile,
          FLOTILLA_AGENT_CA_KEY_FILE: caKeyFile,
          FLOTILLA_AGENT_HEARTBEAT: '10s',
          FLOTILLA_AGENT_HEARTBEAT_TIMEOUT: '60s',
          FLOTILLA_LEASE_TTL: '60s',
          FLOTILLA_SCHEDULER_TICK: '200ms',
          // the CDEvent resolves each new digest: no poll in between to blur when
          FLOTILLA_SOURCE_POLL_INTERVAL: '1h',
          // the CDEvent goes to the first replica; the notice of its digest reaches the others through PostgreSQL
          ...(r === 0 ? { FLOTILLA_EVENTS_PORT: String(eventsPort), FLOTILLA_EVENTS_SECRETS: EVENTS_SECRET } : {}),
        },
        hubFlags,
      ),
  );
  for (const hub of hubs) teardown.push(() => rmSync(hub.dataDir, { recursive: true, force: true }), () => hub.stop());
  const hubUrl = await hubs[0].url;
  for (const hub of hubs) await hub.url;
  const hubPids = hubs.map((h) => h.pid!);

  // each replica's highest RSS in each phase, sampled every 100 ms
  const peaks: Array<{ phase: string; rss: number[] }> = [];
  const enter = (phase: string) => peaks.push({ phase, rss: hubPids.map(() => 0) });
  enter('start');
  const sample = setInterval(() => {
    const peak = peaks[peaks.length - 1];
    hubPids.forEach((pid, r) => (peak.rss[r] = Math.max(peak.rss[r], residentBytes(pid))));
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

  // CPU seconds of the hub, the simulator and PostgreSQL: which of them a phase waits on
  const pgData = join(work, 'postgres', 'data');
  const measure = async () => ({ hubs: hubPids.map((pid) => cpuSeconds(pid)), sim: cpuSeconds(sim.process.pid!), pg: postgresCpuSeconds(pgData), at: Date.now() });
  const phases: Array<{ phase: string; from: Awaited<ReturnType<typeof measure>>; to: Awaited<ReturnType<typeof measure>> }> = [];
  // the same agents against the transport floor first: what they cost any grpc-js server, the hub's reference
  const simulator = prepareSimulator(SIM, work, identityFile, caCertFile);
  const floor = await measureTransportFloor({ simulator, caCertFile, caKeyFile });
  // agent i dials replica i mod n, as a Service spreads a fleet's connections
  const sim = simulator(agentPorts.map((port) => `127.0.0.1:${port}`).join(','));
  teardown.push(() => sim.stop());
  const rssIdle = hubPids.map((pid) => residentBytes(pid));

  enter('connect');
  const beforeConnect = await measure();
  const connected = await sim.next('connected');
  phases.push({ phase: 'connect', from: beforeConnect, to: await measure() });
  const rssConnected = hubPids.map((pid) => residentBytes(pid));
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
  await explainer?.start();
  const rows: Array<{ digest: string; p50: number; p99: number; max: number; reportsPerSecond: number; resolvedMs: number; cpuMs: number[] }> = [];
  for (let d = 1; d <= DIGESTS; d++) {
    const runsBefore = Number((await db.query(`SELECT count(*) AS n FROM runs WHERE result = 'Succeeded'`)).rows[0].n);
    const before = await measure();
    digest = await pushRevision(d);
    const at = Date.now();
    sim.timeDigest(digest, at);
    await sendArtifactPublished(eventsPort, EVENTS_SECRET, image, 'stable');
    const acked = await sim.next('acked');
    await everyTargetAt(db, digest);
    const after = await measure();
    phases.push({ phase: `digest #${d}`, from: before, to: after });
    const stored = Number((await db.query(`SELECT count(*) AS n FROM runs WHERE result = 'Succeeded'`)).rows[0].n) - runsBefore;
    // when the hub resolved the tag on the CDEvent
    const resolved = (await db.query(`SELECT source_checked_at AS t FROM projects WHERE name = 'bench' AND source_digest = $1`, [digest])).rows[0]?.t as Date | undefined;
    rows.push({
      digest: `#${d}`, p50: acked.p50 as number, p99: acked.p99 as number, max: acked.max as number, reportsPerSecond: Math.round(stored / ((Date.now() - at) / 1000)), resolvedMs: resolved ? resolved.getTime() - at : NaN,
      cpuMs: after.hubs.map((c, r) => Math.round((c - before.hubs[r]) * 1000)),
    });
  }
  clearInterval(sample);
  const pgSamples = await pgSampler?.stop();
  const planFile = join(tmpdir(), `bench-agents-plans-${process.pid}.log`);
  const slowStatements = await explainer?.stop(planFile);

  const mib = (b: number) => `${Math.round(b / 1024 / 1024)} MiB`;
  console.log(`\nbench:agents — ${AGENTS} agents (${SIM === 'go' ? 'Go, grpc-go' : 'Node, grpc-js'}) over ${REPLICAS} hub replica${REPLICAS === 1 ? '' : 's'} (dist, a process each), PostgreSQL ${pg.endpoint.url.replace(/:[^:@]*@/, ':***@')}; agents report ${process.env.BENCH_APPLY_MS ?? 2000} ms (±50%) after an assignment`);
  console.log(`all connected (mutual TLS) and holding their assignment set: ${connected.ms} ms`);
  for (let r = 0; r < REPLICAS; r++) {
    const peakRss = Math.max(...peaks.filter((p) => p.phase !== 'start').map((p) => p.rss[r]));
    console.log(`replica ${r} RSS: ${mib(rssIdle[r])} before the agents, ${mib(rssConnected[r])} with its ${Math.ceil((AGENTS - r) / REPLICAS)} connected, ${mib(peakRss)} peak${REPLICAS > 1 ? ' (goal < 1024 MiB)' : ''}`);
  }
  console.log(`V8 heap of replica 0 with all connected: ${mib(heapConnected.used)} used of ${mib(heapConnected.total)}`);
  const perAgentKiB = (before: number, after: number, agents: number) => (after - before) / agents / 1024;
  const [floorKiB, hubKiB] = [perAgentKiB(floor.rssBefore, floor.rssConnected, AGENTS), perAgentKiB(rssIdle[0], rssConnected[0], Math.ceil(AGENTS / REPLICAS))];
  console.log(
    `transport floor (the agent service on grpc-js with the hub's TLS and options, the same agents, no hub work): ${mib(floor.rssBefore)} before, ${mib(floor.rssConnected)} with all connected (${floor.connectMs} ms), ` +
      `${floorKiB.toFixed(1)} KiB per agent; replica 0 ${hubKiB.toFixed(1)} KiB per agent${floorKiB > 0 ? `, ${(hubKiB / floorKiB).toFixed(2)}× the floor` : ''}`,
  );
  console.log(`RSS peaks by phase: ${peaks.map((p) => `${p.phase} ${p.rss.map(mib).join(' / ')}`).join(', ')}`);
  console.log(`| digest | digest→every agent holds it p50 | p99 (goal < 2000 ms) | max | of which the hub resolving the tag | reports stored/s (goal 2000) | hub CPU per digest, by replica |`);
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.digest} | ${r.p50} ms | ${r.p99} ms | ${r.max} ms | ${r.resolvedMs} ms | ${r.reportsPerSecond} | ${r.cpuMs.map((ms) => `${ms} ms`).join(' / ')} |`);
  console.log('\nCPU seconds per phase (2 cores: a phase of s seconds has 2·s to give)');
  console.log('| phase | wall | hub replicas | simulator | PostgreSQL |');
  console.log('|---|---|---|---|---|');
  const f = (n: number) => n.toFixed(1);
  for (const p of phases) console.log(`| ${p.phase} | ${f((p.to.at - p.from.at) / 1000)} s | ${p.to.hubs.map((c, r) => f(c - p.from.hubs[r])).join(' / ')} | ${f(p.to.sim - p.from.sim)} | ${f(p.to.pg - p.from.pg)} |`);

  if (pgSamples) {
    console.log('\nPostgreSQL statements running (and what they wait on: cpu, Lock:…, Client:…), sampled every 10 ms during the digests');
    for (const p of pgSamples.slice(0, 15)) console.log(`${String(p.samples).padStart(6)}  ${p.statement}`);
  }
  if (slowStatements) {
    console.log(`\nPostgreSQL statements slower than ${explainMs} ms during the digests, by total time (their plans: ${planFile})`);
    for (const p of slowStatements.slice(0, 15)) console.log(`${String(p.count).padStart(6)} × ${(p.totalMs / p.count).toFixed(1).padStart(7)} ms = ${p.totalMs.toFixed(0).padStart(6)} ms  ${p.statement}`);
  }

  await sim.stop();
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
