// `npm run bench:fleet`, second half: the same bundle to N push clusters,
// through the hub this time — REST API, PostgreSQL, scheduler (its default
// concurrency), source cache and the engine — from the Project's creation
// to every Target Ready on the published digest. The hub is the compiled one
// in a process of its own, as `npm start` runs it; the bench watches the
// Targets in PostgreSQL (asking the hub every 20 ms would cost the hub a
// request each time), and the Timoni processes stay outside it. The clusters are push
// clusters registered on the harness API server, one namespace each: the
// bundle puts its instances in the namespace named like the cluster
// (TIMONI_CLUSTER_NAME). With TIMONI_BIN, `timoni bundle apply` does the same
// N clusters one after another, in the same run, and the ratio is printed
// (goals: ≤ 0.5× at 10 clusters, ≤ 0.33× from 30).
// FLOTILLA_SCHEDULER_CONCURRENCY sets the hub's parallel runs (default 32);
// BENCH_REQUESTS=1 lists the API server requests per Target;
// BENCH_PROFILE=<dir> writes the hub's CPU profile of the whole run when it
// stops; BENCH_TIMELINE=1 prints when the Targets were
// created and their runs started and finished, from the Project's row.
// Then the same N Targets once more with nothing changed (a manual reconcile;
// done when PostgreSQL holds N finished runs of it, so watching costs the hub
// nothing), against `timoni bundle apply` of the same bundle again: what a
// fleet does at every interval, printed without a goal.
// Both sides warm: one Project, and one Timoni apply, first.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { fetch as undiciFetch } from 'undici';
import { ClusterConnection, ObjectClient, type KubeObject } from '@flotilla/kube';
import { RegistryClient } from '@flotilla/oci';
import { HubApi } from '../../../test/e2e/support/hub-api';
import { HubProcess } from '../../../test/e2e/support/hub-process';
import { startHarness } from '../../../test/harness/harness';
import type { KubeEndpoint } from '../../../test/harness/types';
import { pushProject, pushTestModule } from '../../../libs/engine/testdata/harness';
import { defaultSchedulerConfig } from '../src/config/hub-config';
import { commandName, cpuSeconds, descendantCpuSeconds } from './cpu-times';

const TOKEN = 'bench-admin-token-0123456789';

const bundle = (module: string) => `bundle: {
	_cluster: string @timoni(runtime:string:TIMONI_CLUSTER_NAME)
	apiVersion: "v1alpha1"
	name:       "fleet"
	instances: {
		db: {module: {url: "${module}", version: "1.0.0"}, namespace: _cluster, values: message: "db"}
		cache: {module: {url: "${module}", version: "1.0.0"}, namespace: _cluster, values: message: "cache"}
		web: {module: {url: "${module}", version: "1.0.0"}, namespace: _cluster, values: {message: "web", extra: true}}
	}
}
`;

const kubeconfig = (kube: KubeEndpoint) =>
  [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: harness, cluster: {server: "${kube.server}", certificate-authority-data: "${Buffer.from(kube.caData).toString('base64')}"}}]`,
    `users: [{name: admin, user: {token: "${kube.admin.token}"}}]`,
    'contexts: [{name: harness, context: {cluster: harness, user: admin}}]',
    'current-context: harness',
    '',
  ].join('\n');

interface TargetView {
  cluster: string;
  phase: string;
  lastAppliedRevision?: string | null;
  message?: string | null;
}

/** The hub's API server requests so far, by code, method and path, from its /metrics. */
async function kubeRequests(api: HubApi): Promise<Map<string, number>> {
  const { text } = await api.expectCall(200, 'GET', '/metrics');
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/^flotilla_kube_api_requests_total\{(.*)\} (\d+)$/gm)) counts.set(m[1]!, Number(m[2]));
  return counts;
}

const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

/** BENCH_REQUESTS=1: which requests a Target costs, to tell the avoidable ones. */
function printRequests(before: Map<string, number>, after: Map<string, number>, n: number): void {
  for (const [labels, count] of after) {
    const per = (count - (before.get(labels) ?? 0)) / n;
    if (per > 0) console.log(`    ${per.toFixed(2).padStart(6)} ${labels}`);
  }
}

/** Reads `sql`'s one row every 20 ms until `done` holds for it: the bench watches the hub in PostgreSQL, which costs the hub nothing. */
async function watch<R extends object>(db: Client, sql: string, params: unknown[], done: (row: R) => boolean): Promise<R> {
  for (;;) {
    const { rows } = await db.query<R>(sql, params);
    if (done(rows[0]!)) return rows[0]!;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** BENCH_TIMELINE=1: where the wall time went, in ms from the Project's row (the database's clock). */
async function printTimeline(db: Client, project: string): Promise<void> {
  const { rows } = await db.query<{ what: string; ms: number[] }>(
    `WITH p AS (SELECT id, created_at FROM projects WHERE name = $1)
     SELECT 'target created' AS what, array_agg(EXTRACT(EPOCH FROM t.created_at - p.created_at) * 1000 ORDER BY t.created_at) AS ms FROM targets t, p WHERE t.project_id = p.id
     UNION ALL SELECT 'run started', array_agg(EXTRACT(EPOCH FROM r.started_at - p.created_at) * 1000 ORDER BY r.started_at) FROM runs r JOIN targets t ON t.id = r.target_id, p WHERE t.project_id = p.id
     UNION ALL SELECT 'run finished', array_agg(EXTRACT(EPOCH FROM r.finished_at - p.created_at) * 1000 ORDER BY r.finished_at) FROM runs r JOIN targets t ON t.id = r.target_id, p WHERE t.project_id = p.id
     UNION ALL SELECT 'run duration', array_agg(r.duration_ms::float ORDER BY r.duration_ms) FROM runs r JOIN targets t ON t.id = r.target_id, p WHERE t.project_id = p.id`,
    [project],
  );
  for (const { what, ms } of rows) {
    const at = (ms ?? []).map(Number);
    const q = (f: number) => at[Math.min(at.length - 1, Math.floor(f * at.length))]?.toFixed(0) ?? '-';
    console.log(`    ${what.padEnd(14)} n ${String(at.length).padStart(3)}  first ${q(0).padStart(5)}  median ${q(0.5).padStart(5)}  last ${q(1).padStart(5)} ms`);
  }
}

const progress = (what: string) => process.stderr.write(`bench: ${what}\n`);

async function main(): Promise<void> {
  const sizes = (process.env.BENCH_FLEET ?? '10,30').split(',').map(Number);
  const timoni = process.env.TIMONI_BIN;
  // FLOTILLA_SCHEDULER_CONCURRENCY, as the hub reads it
  const concurrency = Number(process.env.FLOTILLA_SCHEDULER_CONCURRENCY ?? defaultSchedulerConfig().concurrency);
  const work = mkdtempSync(join(tmpdir(), 'fleet-hub-bench-'));
  const harness = await startHarness(['postgres', 'registry', 'kube']);
  process.env.FLOTILLA_HARNESS = JSON.stringify(harness.env);
  const { kube, registry, postgres } = harness.env as Required<typeof harness.env>;
  const admin = ClusterConnection.create({ server: kube.server, caData: kube.caData, token: kube.admin.token });
  const client = new ObjectClient(admin);
  let hub: HubProcess | undefined;
  /** the bench's own session, to watch the hub's progress without asking the hub */
  const db = new Client({ connectionString: postgres.url });
  try {
    await db.connect();
    const reg = new RegistryClient({ fetch: undiciFetch as unknown as typeof fetch });
    const module = await pushTestModule(reg, registry.host);
    const repository = `oci://${registry.host}/projects/fleet`;
    const digest = await pushProject(reg, repository, {
      'project.cue': 'project: {\n\tapiVersion: "v1alpha1"\n\tname:       "fleet"\n\tcomponents: app: bundle: ["./bundle.cue"]\n}\n',
      'bundle.cue': bundle(module),
    });
    const bundleFile = join(work, 'bundle.cue');
    writeFileSync(bundleFile, bundle(module));
    const kubeconfigFile = join(work, 'kubeconfig');
    writeFileSync(kubeconfigFile, kubeconfig(kube), { mode: 0o600 });

    // The Project's service account may write in every cluster's namespace.
    const apply = (obj: Record<string, unknown>) => client.apply(obj as KubeObject);
    await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet' } });
    await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: 'fleet' } });
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'fleet-deployer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: 'fleet' }],
    });
    const clusters = async (group: string, n: number) => {
      const names = Array.from({ length: n }, (_, i) => `${group}-${i + 1}`);
      await Promise.all(names.map((name) => apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })));
      return names;
    };

    hub = new HubProcess('fleet-bench', { DATABASE_URL: postgres.url, FLOTILLA_ADMIN_TOKEN: TOKEN, FLOTILLA_SCHEDULER_CONCURRENCY: String(concurrency), LOG_LEVEL: 'error' },
      process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []);
    const api = new HubApi(hub, TOKEN);
    /** fails on any answer but 2xx */
    const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await api.call(method, path, body);
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
      return res.body as T;
    };
    await api.expectCall(200, 'GET', '/readyz');
    const hubPid = hub.pid!;
    const register = (names: string[], group: string) =>
      Promise.all(names.map((name) => call('POST', '/api/v1/clusters', { name, group, mode: 'push', endpoint: { server: kube.server, caData: kube.caData }, credentials: { token: kube.admin.token } })));

    /** ms from the Project's creation to all its Targets Ready on the digest. */
    /** `started` is called at the Project's creation, after the clusters' registration. */
    const flotilla = async (group: string, names: string[], started?: () => Promise<void>): Promise<number> => {
      await register(names, group);
      await started?.();
      const t0 = performance.now();
      await call('POST', '/api/v1/projects', { name: group, namespace: 'fleet', serviceAccountName: 'deployer', source: { repository, tag: 'latest' }, targets: { groups: [group] } });
      for (;;) {
        await watch<{ ready: number; failed: number }>(
          db,
          `SELECT count(*) FILTER (WHERE t.phase = 'Ready' AND t.last_applied_revision LIKE '%' || $2)::int AS ready,
                  count(*) FILTER (WHERE t.phase IN ('Failed', 'Stalled'))::int AS failed
             FROM targets t JOIN projects p ON p.id = t.project_id WHERE p.name = $1`,
          [group, digest],
          (r) => r.ready === names.length || r.failed > 0,
        );
        const at = performance.now();
        // the API's Targets list confirms or explains
        const body = await call<TargetView[] | { items: TargetView[] }>('GET', `/api/v1/projects/${group}/targets`);
        const targets = Array.isArray(body) ? body : body.items;
        const failed = targets.find((t) => t.phase === 'Failed' || t.phase === 'Stalled');
        if (failed) throw new Error(`${group}: Target ${failed.cluster} is ${failed.phase}: ${failed.message ?? ''}`);
        if (targets.length === names.length && targets.every((t) => t.phase === 'Ready' && t.lastAppliedRevision?.includes(digest))) return at - t0;
      }
    };
    /** ms from a manual reconcile of the Project to every Target's run of it finished, read in PostgreSQL. */
    const reconcileAgain = async (group: string, n: number): Promise<number> => {
      const t0 = performance.now();
      await call('POST', `/api/v1/projects/${group}/reconcile`);
      const { failed } = await watch<{ ok: number; failed: number }>(
        db,
        `SELECT count(*) FILTER (WHERE r.result = 'Succeeded')::int AS ok, count(*) FILTER (WHERE r.result = 'Failed')::int AS failed
           FROM runs r JOIN targets t ON t.id = r.target_id JOIN projects p ON p.id = t.project_id
          WHERE p.name = $1 AND r.trigger = 'Manual' AND r.finished_at IS NOT NULL`,
        [group],
        (r) => r.ok >= n || r.failed > 0,
      );
      if (failed > 0) throw new Error(`${group}: a reconcile run failed`);
      return performance.now() - t0;
    };
    const timoniApply = (names: string[]): number => {
      const t0 = performance.now();
      for (const name of names) {
        const res = spawnSync(timoni!, ['bundle', 'apply', '-f', bundleFile, '--runtime-from-env', '--kubeconfig', kubeconfigFile, '--registry-insecure', '--wait=false'], {
          env: { ...process.env, TIMONI_CLUSTER_NAME: name, HOME: work },
          encoding: 'utf8',
          timeout: 120_000,
        });
        if (res.status !== 0) throw new Error(`timoni bundle apply for ${name} failed (${res.error?.message ?? res.status}): ${res.stderr}`);
      }
      return performance.now() - t0;
    };

    progress('warming up both sides');
    await flotilla('warm', await clusters('warm', 1));
    if (timoni) timoniApply(await clusters('timoni-warm', 1));

    console.log(`one bundle (3 instances) to N push clusters through the hub (PostgreSQL, scheduler concurrency ${concurrency}), creation → all Ready; ${timoni ? 'against timoni bundle apply, sequential' : 'set TIMONI_BIN for the ratio against Timoni'}`);
    for (const n of sizes) {
      progress(`N = ${n}`);
      const fleet = await clusters(`fleet${n}`, n);
      const before = await kubeRequests(api);
      const cpu = cpuSeconds(hubPid);
      let runCpu = cpu;
      let others = descendantCpuSeconds(process.pid);
      const f = await flotilla(`fleet${n}`, fleet, async () => {
        runCpu = cpuSeconds(hubPid);
        others = descendantCpuSeconds(process.pid);
      });
      const hubCpu = cpuSeconds(hubPid);
      const othersAfter = descendantCpuSeconds(process.pid);
      // where the rest of the machine's CPU went from the Project's creation: the harness, the hub and its CUE helpers are this process's descendants
      const hubName = commandName(hubPid);
      const spent = [...othersAfter]
        .map(([name, s]) => [name, s - (others.get(name) ?? 0) - (name === hubName ? hubCpu - runCpu : 0)] as const)
        .filter(([, s]) => s >= 0.05);
      const after = await kubeRequests(api);
      const perTarget = (sum(after) - sum(before)) / n;
      const line = `  N = ${String(n).padEnd(3)} hub: ${f.toFixed(0).padStart(6)} ms (hub process ${(hubCpu - cpu).toFixed(2)} CPU s with the clusters' registration, ${(hubCpu - runCpu).toFixed(2)} from the Project's creation; ${perTarget.toFixed(0)} API server requests per Target)`;
      if (process.env.BENCH_REQUESTS) printRequests(before, after, n);
      if (process.env.BENCH_TIMELINE) await printTimeline(db, `fleet${n}`);
      console.log(`    CPU s of the other processes meanwhile: ${spent.map(([name, s]) => `${name} ${s.toFixed(2)}`).join(', ')}`);
      // the hub's second pass before Timoni's: Timoni runs in spawnSync, which holds this
      // process's event loop, and a kept socket to the hub may have been closed meanwhile
      const cpuAgain = cpuSeconds(hubPid);
      const requestsAgain = await kubeRequests(api);
      const again = await reconcileAgain(`fleet${n}`, n);
      const afterAgain = await kubeRequests(api);
      const perTargetAgain = (sum(afterAgain) - sum(requestsAgain)) / n;
      const lineAgain = `  N = ${String(n).padEnd(3)} again, nothing changed: hub ${again.toFixed(0).padStart(6)} ms (hub process ${(cpuSeconds(hubPid) - cpuAgain).toFixed(2)} CPU s; ${perTargetAgain.toFixed(0)} API server requests per Target)`;
      if (process.env.BENCH_REQUESTS) {
        console.log('    again:');
        printRequests(requestsAgain, afterAgain, n);
      }
      if (!timoni) {
        console.log(line);
        console.log(lineAgain);
        continue;
      }
      const timoniNames = await clusters(`timoni${n}`, n);
      const t = timoniApply(timoniNames);
      console.log(`${line}   timoni: ${t.toFixed(0).padStart(6)} ms   ratio ${(f / t).toFixed(2)}× (goal ≤ ${n >= 30 ? '0.33' : '0.50'}×)`);
      const tAgain = timoniApply(timoniNames);
      console.log(`${lineAgain}   timoni: ${tAgain.toFixed(0).padStart(6)} ms   ratio ${(again / tAgain).toFixed(2)}×`);
    }
  } finally {
    await hub?.stop();
    if (hub) rmSync(hub.dataDir, { recursive: true, force: true });
    await admin.close();
    await db.end().catch(() => undefined); // never connected, or already gone
    await harness.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
