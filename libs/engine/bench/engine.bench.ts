// `npm run bench:engine`: (1) renders one Project for N simulated clusters
// through the Timoni generator (no apply) and counts the builds performed
// against the Targets; (2) full reconciles of K Targets on a real API server
// (one tenant namespace each, standing in for clusters), cold then no-op.
// BENCH_TARGETS=n (default 200), BENCH_APPLY=k (default 10).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fetch as undiciFetch } from 'undici';
import { CueEngine } from '@flotilla/cue';
import { ClusterConnection, ResourceManager } from '@flotilla/kube';
import { RegistryClient } from '@flotilla/oci';
import { RegistryClients, SourceCache, TimoniManifestGenerator, reconcileProject, resolveTag, type ComponentRequest, type ProjectSpec } from '@flotilla/engine';
import { startKube } from '../../../test/harness/kube';
import { startRegistry } from '../../../test/harness/registry';
import { createTenant, pushProject, pushTestModule } from '../testdata/harness';

const project = (module: string, ns: string) => ({
  'project.cue': `project: {
	apiVersion: "v1alpha1"
	name:       "bench"
	components: {
		infra: {bundle: ["./infra.cue"], wait: true}
		app: {bundle: ["./app.cue"], needs: ["infra"]}
	}
}
`,
  'infra.cue': `bundle: {
	_group: string @timoni(runtime:string:TIMONI_CLUSTER_GROUP)
	_ns:    *"${ns}" | string @timoni(runtime:string:NS)
	apiVersion: "v1alpha1"
	name:       "infra"
	instances: {
		db: {module: url: "${module}", namespace: _ns, values: message: "db for \\(_group)"}
		cache: {module: url: "${module}", namespace: _ns, values: message: "cache for \\(_group)"}
	}
}
`,
  'app.cue': `bundle: {
	_group: string @timoni(runtime:string:TIMONI_CLUSTER_GROUP)
	_ns:    *"${ns}" | string @timoni(runtime:string:NS)
	apiVersion: "v1alpha1"
	name:       "app"
	instances: web: {module: url: "${module}", namespace: _ns, values: {message: "web for \\(_group)", extra: true}}
}
`,
});

const ms = (t: number) => `${(performance.now() - t).toFixed(0)} ms`;
const mb = (b: number) => `${(b / 1048576).toFixed(0)} MiB`;

async function main(): Promise<void> {
  const n = Number(process.env.BENCH_TARGETS ?? 200);
  const k = Number(process.env.BENCH_APPLY ?? 10);
  const work = mkdtempSync(join(tmpdir(), 'engine-bench-'));
  const registry = await startRegistry(work, 'registry');
  const kube = await startKube(work);
  const cue = await CueEngine.start();
  let requests = 0;
  const conn = ClusterConnection.create({ server: kube.endpoint.server, caData: kube.endpoint.caData, token: kube.endpoint.admin.token }, { onRequest: () => requests++ });
  try {
    process.env.FLOTILLA_HARNESS = JSON.stringify({ registry: registry.endpoint, kube: kube.endpoint });
    // Pushes go through undici 7's own fetch: once libs/kube has loaded undici 7,
    // Node 20's built-in fetch dispatches through it and rejects the explicit
    // content-length of libs/oci's blob PUTs (pulls are unaffected).
    const reg = new RegistryClient({ fetch: undiciFetch as unknown as typeof fetch });
    const module = await pushTestModule(reg, registry.endpoint.host);
    const repo = `oci://${registry.endpoint.host}/projects/bench`;
    await pushProject(reg, repo, project(module, 'apps'));
    const digest = await resolveTag(reg, repo, 'latest');

    // (1) render sharing: N clusters in two groups, same namespace.
    const generator = new TimoniManifestGenerator(cue);
    const sources = new SourceCache();
    const registries = new RegistryClients();
    const client = registries.get({ source: { kind: 'anonymous' }, fingerprint: 'anonymous' });
    const files = await sources.fetch(client, repo, digest);
    let instances = 0;
    const t1 = performance.now();
    let peak = process.memoryUsage().rss;
    for (let i = 0; i < n; i++) {
      const plan = await generator.loadProject(files, 'project.cue');
      for (const component of plan.components) {
        const req: ComponentRequest = {
          files, project: plan, component, registry: client, signal: new AbortController().signal,
          target: { cluster: { name: `cluster-${i}`, group: i % 2 ? 'production' : 'staging' }, annotations: {}, reader: { get: async () => null }, kubeVersion: '1.36.3' },
        };
        const bundle = await generator.bundle(req, await generator.runtimeValues(req));
        for (const inst of bundle.instances) {
          await generator.buildInstance(req, bundle, inst.name);
          instances++;
        }
      }
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    const s = generator.stats();
    console.log(`render ${n} targets (2 groups, ${instances} instance renders): ${ms(t1)}, ${((performance.now() - t1) / n).toFixed(1)} ms/target`);
    console.log(`  project loads ${s.projectLoads}, bundle loads ${s.bundles.misses} (hits ${s.bundles.hits + s.bundles.joins}), module builds ${s.builds.misses} (hits ${s.builds.hits + s.builds.joins}), peak RSS ${mb(peak)}`);

    // (2) full reconciles of K Targets on the API server.
    const manager = new ResourceManager(conn);
    const specs: ProjectSpec[] = [];
    for (let i = 0; i < k; i++) {
      const ns = await createTenant(manager.client, 'bench');
      specs.push({ name: 'bench', namespace: ns, source: { repository: repo, tag: 'latest', path: 'project.cue' }, serviceAccountName: 'deployer', annotations: { 'runtime.timoni.sh/NS': ns } });
    }
    for (const label of ['cold (all created)', 'warm (no-op)']) {
      const before = requests;
      const t2 = performance.now();
      const results = await Promise.all(
        specs.map((p, i) => reconcileProject({ project: p, cluster: { name: `cluster-${i}`, group: 'staging' }, digest }, { generator, manager, sources, registries })),
      );
      const failed = results.filter((r) => !r.ok);
      if (failed.length > 0) throw new Error(`reconcile failed: ${failed[0].error?.message}`);
      const avg = results.reduce((a, r) => a + r.durationMs, 0) / k;
      console.log(`reconcile ${k} targets at once, ${label}: ${ms(t2)} wall, ${avg.toFixed(0)} ms per run, ${requests - before} API requests`);
      const r = results[0];
      console.log(`  first run: steps ${JSON.stringify(r.timings)}, components ${r.components.map((c) => `${c.name} ${c.durationMs} ms`).join(', ')}`);
    }
  } finally {
    await conn.close();
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
