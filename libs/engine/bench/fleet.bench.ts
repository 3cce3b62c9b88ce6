// `npm run bench:fleet`: one bundle applied to N push clusters, N = 10 and 30
// (BENCH_FLEET=10,30), with the engine the hub runs for push clusters: every
// Target reconciled at once, each over its own connection, impersonating
// its service account. The clusters are namespaces of the harness API server
// standing in for clusters (the bundle puts its instances in the namespace
// the runtime value NS names). With TIMONI_BIN, the same bundle is applied
// by `timoni bundle apply` once per cluster, one after another as Timoni
// does, in the same run, and the ratio printed. Both sides warm: one apply
// each before timing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fetch as undiciFetch } from 'undici';
import { CueEngine } from '@flotilla/cue';
import { ClusterConnection, ResourceManager } from '@flotilla/kube';
import { RegistryClient } from '@flotilla/oci';
import { RegistryClients, SourceCache, TimoniManifestGenerator, reconcileProject, resolveTag, type ProjectSpec } from '@flotilla/engine';
import { startKube } from '../../../test/harness/kube';
import type { KubeEndpoint } from '../../../test/harness/types';
import { startRegistry } from '../../../test/harness/registry';
import { createTenant, pushProject, pushTestModule } from '../testdata/harness';

const bundle = (module: string) => `bundle: {
	_ns:     string @timoni(runtime:string:NS)
	apiVersion: "v1alpha1"
	name:       "fleet"
	instances: {
		db: {module: {url: "${module}", version: "1.0.0"}, namespace: _ns, values: message: "db"}
		cache: {module: {url: "${module}", version: "1.0.0"}, namespace: _ns, values: message: "cache"}
		web: {module: {url: "${module}", version: "1.0.0"}, namespace: _ns, values: {message: "web", extra: true}}
	}
}
`;

const project = (module: string) => ({
  'project.cue': 'project: {\n\tapiVersion: "v1alpha1"\n\tname:       "fleet"\n\tcomponents: app: bundle: ["./bundle.cue"]\n}\n',
  'bundle.cue': bundle(module),
});

function kubeconfig(kube: KubeEndpoint): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters: [{name: harness, cluster: {server: "' + kube.server + '", certificate-authority-data: "' + Buffer.from(kube.caData).toString('base64') + '"}}]',
    'users: [{name: admin, user: {token: "' + kube.admin.token + '"}}]',
    'contexts: [{name: harness, context: {cluster: harness, user: admin}}]',
    'current-context: harness',
    '',
  ].join('\n');
}

/** CPU seconds so far of this process's descendants, by command name (API server, etcd, CUE helpers …). */
function childCpu(pid = process.pid, into = new Map<string, number>()): Map<string, number> {
  let children: number[];
  try {
    children = readdirSync(`/proc/${pid}/task`).flatMap((t) => readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return into;
  }
  for (const c of children) {
    try {
      const stat = readFileSync(`/proc/${c}/stat`, 'utf8');
      const name = /\((.*)\)/.exec(stat)![1];
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cpu = (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
      into.set(name, (into.get(name) ?? 0) + cpu);
    } catch {
      continue; // gone meanwhile
    }
    childCpu(c, into);
  }
  return into;
}

/** CPU seconds spent between two snapshots: this process, then its descendants by name. */
function cpuSince(before: { own: NodeJS.CpuUsage; children: Map<string, number> }): string {
  const own = process.cpuUsage(before.own);
  const parts = [`node ${((own.user + own.system) / 1e6).toFixed(2)}`];
  for (const [name, cpu] of childCpu()) {
    const d = cpu - (before.children.get(name) ?? 0);
    if (d >= 0.01) parts.push(`${name} ${d.toFixed(2)}`);
  }
  return parts.join(', ');
}

const cpuNow = () => ({ own: process.cpuUsage(), children: childCpu() });

const progress = (what: string) => process.stderr.write(`bench: ${what}\n`);

async function main(): Promise<void> {
  const sizes = (process.env.BENCH_FLEET ?? '10,30').split(',').map(Number);
  const timoni = process.env.TIMONI_BIN;
  const work = mkdtempSync(join(tmpdir(), 'fleet-bench-'));
  const registry = await startRegistry(work, 'registry');
  const kube = await startKube(work);
  const cue = await CueEngine.start();
  const admin = ClusterConnection.create({ server: kube.endpoint.server, caData: kube.endpoint.caData, token: kube.endpoint.admin.token });
  const connections: ClusterConnection[] = [];
  try {
    process.env.FLOTILLA_HARNESS = JSON.stringify({ registry: registry.endpoint, kube: kube.endpoint });
    // Pushes go through undici's own fetch (see engine.bench.ts).
    const reg = new RegistryClient({ fetch: undiciFetch as unknown as typeof fetch });
    const module = await pushTestModule(reg, registry.endpoint.host);
    const repo = `oci://${registry.endpoint.host}/projects/fleet`;
    await pushProject(reg, repo, project(module));
    const digest = await resolveTag(reg, repo, 'latest');
    const bundleFile = join(work, 'bundle.cue');
    writeFileSync(bundleFile, bundle(module));
    const kubeconfigFile = join(work, 'kubeconfig');
    writeFileSync(kubeconfigFile, kubeconfig(kube.endpoint), { mode: 0o600 });

    const generator = new TimoniManifestGenerator(cue);
    const sources = new SourceCache();
    const registries = new RegistryClients();
    const adminClient = new ResourceManager(admin).client;

    /** Fresh namespaces with the tenant's service account, one per cluster. */
    const clusters = async (n: number) => Promise.all(Array.from({ length: n }, () => createTenant(adminClient, 'fleet')));
    const flotilla = async (namespaces: string[]) => {
      const t0 = performance.now();
      const results = await Promise.all(
        namespaces.map((ns, i) => {
          const conn = ClusterConnection.create({ server: kube.endpoint.server, caData: kube.endpoint.caData, token: kube.endpoint.admin.token });
          connections.push(conn);
          const spec: ProjectSpec = { name: 'fleet', namespace: ns, source: { repository: repo, tag: 'latest', path: 'project.cue' }, serviceAccountName: 'deployer', annotations: { 'runtime.timoni.sh/NS': ns } };
          return reconcileProject({ project: spec, cluster: { name: `cluster-${i}`, group: 'fleet' }, digest }, { generator, manager: new ResourceManager(conn), sources, registries });
        }),
      );
      const failed = results.find((r) => !r.ok);
      if (failed) throw new Error(`reconcile failed: ${failed.error?.message}`);
      return performance.now() - t0;
    };
    /** Wall ms of the sequential applies, and Timoni's own CPU s (reaped children: counted by the shell's `times`). */
    const timoniApply = (namespaces: string[]) => {
      const t0 = performance.now();
      let cpu = 0;
      for (const ns of namespaces) {
        const res = spawnSync('/bin/sh', ['-c', '"$0" "$@" >/dev/null && times', timoni!, 'bundle', 'apply', '-f', bundleFile, '--runtime-from-env', '--kubeconfig', kubeconfigFile, '--registry-insecure', '--wait=false'], {
          env: { ...process.env, NS: ns, HOME: work },
          encoding: 'utf8',
          timeout: 120_000,
        });
        if (res.status !== 0) throw new Error(`timoni bundle apply for ${ns} failed (${res.error?.message ?? res.status}): ${res.stderr}`);
        // second line of `times`: children's user and system time, e.g. "0m0.10s 0m0.02s"
        const m = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(res.stdout.trim());
        if (m) cpu += Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]);
      }
      return { wallMs: performance.now() - t0, cpu };
    };

    progress('warming up both sides');
    await flotilla(await clusters(1));
    if (timoni) timoniApply(await clusters(1));

    console.log(`one bundle (3 instances) applied to N clusters (namespaces of one API server standing in), ${timoni ? 'against timoni bundle apply, sequential' : 'set TIMONI_BIN for the ratio against Timoni'}`);
    for (const n of sizes) {
      progress(`N = ${n}`);
      const fleet = await clusters(n);
      let cpu = cpuNow();
      const f = await flotilla(fleet);
      const fCpu = cpuSince(cpu);
      const line = `  N = ${String(n).padEnd(3)} flotilla (all at once): ${f.toFixed(0).padStart(6)} ms`;
      if (!timoni) {
        console.log(`${line}\n    CPU s: ${fCpu}`);
        continue;
      }
      const other = await clusters(n);
      cpu = cpuNow();
      const { wallMs: t, cpu: timoniCpu } = timoniApply(other);
      const tCpu = `timoni ${timoniCpu.toFixed(2)}, ${cpuSince(cpu)}`;
      console.log(`${line}   timoni: ${t.toFixed(0).padStart(6)} ms   ratio ${(f / t).toFixed(2)}× (goal ≤ 0.50×)`);
      console.log(`    CPU s, flotilla: ${fCpu}\n    CPU s, timoni:   ${tCpu}`);
    }
  } finally {
    await Promise.all(connections.map((c) => c.close()));
    await admin.close();
    await cue.close();
    await kube.stop();
    await registry.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
