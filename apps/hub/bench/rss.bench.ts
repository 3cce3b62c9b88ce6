// `npm run bench:rss`: the compiled hub's resident memory at rest. Real
// PostgreSQL, registry and kube-apiserver (the test harness); the hub runs as
// `npm start` runs it (dist/apps/hub/src/main.js) on a fresh database. Three
// scenarios, each on its own hub process:
//  - idle: started, nothing registered;
//  - two Projects, CUE native (the default): the harness API server
//    registered, two Projects of two components converged on it;
//  - the same with FLOTILLA_CUE_RUNTIME=wasm (the fallback, earlier the default).
// At rest = after the last run, sampled every second for BENCH_REST_S
// seconds (default 10). Prints the hub's RSS and, apart, that of its child
// processes (the native CUE helpers), read from /proc.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Client } from 'pg';
import { RegistryClient } from '@flotilla/oci';
import { startHarness } from '../../../test/harness/harness';
import { HubProcess } from '../../../test/e2e/support/hub-process';
import { shopProjectFiles } from '../../../test/e2e/fixtures/projects';
import { projectRepository, publishProject, publishWebapp } from '../../../test/e2e/support/publish';
import { adminClient, prepareTenant, uniqueName } from '../../../test/e2e/support/spoke';
import { residentBytes } from './cpu-times';

const REST_S = Number(process.env.BENCH_REST_S ?? 10);
const MiB = 1024 * 1024;

/** Pids whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const harness = await startHarness(['postgres', 'registry', 'kube']);
  process.env.FLOTILLA_HARNESS = JSON.stringify(harness.env);
  const env = harness.env as Required<typeof harness.env>;
  const registry = new RegistryClient();
  const kube = adminClient();
  const rows: string[] = [];
  try {
    const moduleUrl = await publishWebapp(registry);
    const scenario = async (name: string, projects: number, extraEnv: Record<string, string>) => {
      const db = `rss_${randomBytes(6).toString('hex')}`;
      const admin = new Client({ connectionString: env.postgres.url });
      await admin.connect();
      await admin.query(`CREATE DATABASE "${db}"`);
      await admin.end();
      const url = new URL(env.postgres.url);
      url.pathname = `/${db}`;
      const token = `adm_${randomBytes(16).toString('hex')}`;
      const hub = new HubProcess(`rss-${projects}`, {
        DATABASE_URL: url.toString(),
        FLOTILLA_ADMIN_TOKEN: token,
        FLOTILLA_ENCRYPTION_KEYS: `rss1:${randomBytes(32).toString('base64')}`,
        LOG_LEVEL: 'warn',
        ...extraEnv,
      });
      const base = await hub.url;
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
        if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
        return res.json() as Promise<Record<string, unknown>>;
      };
      try {
        if (projects > 0) {
          await call('POST', '/api/v1/clusters', { name: 'spoke', group: 'bench', mode: 'push', endpoint: { server: env.kube.server, caData: env.kube.caData }, credentials: { token: env.kube.admin.token } });
          for (let i = 0; i < projects; i++) {
            const ns = uniqueName('bench-rss');
            await prepareTenant(kube, { namespace: ns, serviceAccount: 'deployer', instanceNamespaces: [ns] });
            const repo = projectRepository();
            await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db', 'cache'], message: `p${i}` }));
            await call('POST', '/api/v1/projects', { name: `p${i}`, namespace: ns, serviceAccountName: 'deployer', source: { repository: repo }, targets: { names: ['spoke'] } });
          }
          for (const deadline = Date.now() + 120_000; ; ) {
            const list = (await call('GET', '/api/v1/projects')) as { items: Array<{ status: { ready: number } }> };
            if (list.items.every((p) => p.status.ready === 1)) break;
            if (Date.now() > deadline) throw new Error(`Projects did not converge: ${JSON.stringify(list.items.map((p) => p.status))}`);
            await new Promise((r) => setTimeout(r, 250));
          }
        } else {
          await call('GET', '/api/v1/projects');
        }
        const hubRss: number[] = [];
        const helperRss: number[] = [];
        for (let s = 0; s < REST_S; s++) {
          await new Promise((r) => setTimeout(r, 1000));
          hubRss.push(residentBytes(hub.pid!));
          helperRss.push(childrenOf(hub.pid!).reduce((n, pid) => n + residentBytes(pid), 0));
        }
        // where the hub's memory is, from its own default metrics
        const metrics = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
        const gauge = (metric: string) => Number(new RegExp(`^${metric} (\\S+)`, 'm').exec(metrics)?.[1] ?? NaN) / MiB;
        rows.push(
          `| ${name} | ${(median(hubRss) / MiB).toFixed(0)} | ${(Math.max(...hubRss) / MiB).toFixed(0)} | ${gauge('nodejs_heap_size_used_bytes').toFixed(0)} / ${gauge('nodejs_heap_size_total_bytes').toFixed(0)} | ${gauge('nodejs_external_memory_bytes').toFixed(0)} | ${(median(helperRss) / MiB).toFixed(0)} | ${childrenOf(hub.pid!).length} |`,
        );
      } finally {
        await hub.stop();
      }
    };
    await scenario('idle, nothing registered', 0, {});
    await scenario('two Projects converged, CUE native', 2, {});
    await scenario('two Projects converged, CUE wasm', 2, { FLOTILLA_CUE_RUNTIME: 'wasm' });
  } finally {
    await kube.connection.close();
    await harness.stop();
  }
  console.log(`\nhub RSS at rest (${REST_S} samples, 1 s apart, after the last run)\n`);
  console.log('| scenario | hub RSS median MiB | hub RSS max MiB | V8 heap used / total MiB | external MiB | child processes RSS MiB | child processes |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
