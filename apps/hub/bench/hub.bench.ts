// `npm run bench:hub`: one Project on N simulated push clusters (default
// 1000), reconciled by the real hub scheduler on a real PostgreSQL. Each
// Target renders through libs/engine's Timoni generator (so identical renders
// are shared); applying is simulated by an in-process stand-in for API
// servers that keeps each cluster's objects in memory. Prints time to
// converge, builds performed vs Targets, and the hub's peak memory.
// BENCH_TARGETS=n, BENCH_CONCURRENCY=c (runs at once, default 32). Registering
// the clusters prints the cost of one registration at 1,000 clusters and at
// n, and their ratio (1 when the cost does not grow with the inventory);
// BENCH_CONVERGE=off stops there.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fetch as undiciFetch } from 'undici';
import { CueEngine } from '@flotilla/cue';
import {
  appliedInstance, buildRunReport, countChanges, formatRevision, RegistryClients, SourceCache, TimoniManifestGenerator,
  type ComponentRequest, type ComponentResult, type InstanceResult, type RunReport, type RunResult,
} from '@flotilla/engine';
import type { ChangeSetEntry } from '@flotilla/kube';
import { defaultPushModuleOptions, pushArtifact, pushModule, RegistryClient } from '@flotilla/oci';
import { startPostgres } from '../../../test/harness/postgres';
import { startRegistry } from '../../../test/harness/registry';
import type { TargetRunHooks, TargetRunInput, TargetRunner } from '../src/scheduler/target-runner';
import { GREETER_MODULE_DIR } from '../test/push-fixtures';
import { startBenchHub } from './bench-hub';

const projectFiles = (module: string): Record<string, string> => ({
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
	apiVersion: "v1alpha1"
	name:       "infra"
	instances: {
		db: {module: {url: "${module}", version: "1.0.0"}, namespace: "apps", values: greeting: "db"}
		cache: {module: {url: "${module}", version: "1.0.0"}, namespace: "apps", values: greeting: "cache"}
	}
}
`,
  'app.cue': `bundle: {
	_group: string @timoni(runtime:string:TIMONI_CLUSTER_GROUP)
	apiVersion: "v1alpha1"
	name:       "app"
	instances: web: {module: {url: "${module}", version: "1.0.0"}, namespace: "apps", values: {greeting: "web", cluster: _group}}
}
`,
});

/** Renders with the real generator; "applies" into an in-memory object store per cluster. */
class SimulatedClusters implements TargetRunner {
  readonly objects = new Map<string, Map<string, string>>();
  renders = 0;

  constructor(
    private readonly generator: TimoniManifestGenerator,
    private readonly sources: SourceCache,
    private readonly client: RegistryClient,
  ) {}

  async reconcile(input: TargetRunInput & { digest: string }, hooks: TargetRunHooks): Promise<RunReport> {
    const files = await this.sources.fetch(this.client, input.project.source.repository, input.digest);
    const plan = await this.generator.loadProject(files, input.project.source.path);
    const store = this.objects.get(input.cluster.name) ?? new Map<string, string>();
    this.objects.set(input.cluster.name, store);
    const startedAt = new Date();
    const components: ComponentResult[] = [];
    for (const component of plan.components) {
      const req: ComponentRequest = {
        files, project: plan, component, registry: this.client, signal: input.signal,
        target: { cluster: { name: input.cluster.name, group: input.cluster.group }, annotations: {}, reader: { get: async () => null }, kubeVersion: '1.36.3' },
      };
      const bundle = await this.generator.bundle(req, await this.generator.runtimeValues(req));
      const done: ComponentResult = { name: component.name, status: 'Succeeded', bundle: bundle.name, instanceNames: bundle.instances, instances: [], durationMs: 0 };
      components.push(done);
      for (const inst of bundle.instances) {
        const t0 = performance.now();
        const built = await this.generator.buildInstance(req, bundle, inst.name);
        this.renders++;
        const changes: ChangeSetEntry[] = [];
        for (const step of built.steps) {
          for (const obj of step.objects) {
            const id = `${obj.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
            const json = JSON.stringify(obj);
            const before = store.get(id);
            const ref = { group: obj.apiVersion.includes('/') ? obj.apiVersion.split('/')[0] : '', version: obj.apiVersion.split('/').at(-1)!, kind: obj.kind, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name };
            changes.push({ ref, subject: id, action: before === undefined ? 'created' : before === json ? 'unchanged' : 'configured' });
            store.set(id, json);
          }
        }
        const instance: InstanceResult = {
          name: inst.name, namespace: inst.namespace, component: component.name, bundle: bundle.name, module: built.module,
          changes, counts: countChanges(changes), ready: true, durationMs: Math.round(performance.now() - t0),
        };
        await hooks.instanceApplied(appliedInstance(instance), undefined);
        done.instances.push(instance);
      }
    }
    const finishedAt = new Date();
    const result: RunResult = {
      project: { name: input.project.name, namespace: input.project.namespace }, cluster: { name: input.cluster.name, group: input.cluster.group },
      source: input.project.source.repository, tag: input.project.source.tag, digest: input.digest, revision: formatRevision(input.project.source.tag, input.digest),
      ok: true, startedAt, finishedAt, durationMs: finishedAt.getTime() - startedAt.getTime(),
      timings: { resolveMs: 0, fetchMs: 0, loadMs: 0, componentsMs: 0, pruneMs: 0 }, components, pruned: [], namespaces: ['apps'], warnings: [],
    };
    return buildRunReport(result, input.schedule);
  }

  async deleteInstances(): Promise<RunReport> {
    throw new Error('not part of the benchmark');
  }
}

/** Registrations averaged for the cost of one at a given inventory size. */
const REGISTRATION_WINDOW = 100;

const mb = (b: number) => `${(b / 1048576).toFixed(0)} MiB`;

async function main(): Promise<void> {
  const n = Number(process.env.BENCH_TARGETS ?? 1000);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
  const work = mkdtempSync(join(tmpdir(), 'hub-bench-'));
  const [pg, registry] = await Promise.all([startPostgres(work), startRegistry(work, 'registry')]);
  const cue = await CueEngine.start();
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  try {
    // Pushes through undici's own fetch (see libs/engine's bench: Node 20's fetch and undici 7 disagree on blob PUTs).
    const reg = new RegistryClient({ fetch: undiciFetch as unknown as typeof fetch });
    const module = `oci://${registry.endpoint.host}/modules/greeter`;
    await pushModule(reg, module, GREETER_MODULE_DIR, defaultPushModuleOptions('1.0.0'));
    const dir = join(work, 'project');
    for (const [path, content] of Object.entries(projectFiles(module))) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    const repo = `oci://${registry.endpoint.host}/projects/bench`;
    await pushArtifact(reg, repo, dir, { tags: ['latest'], contentType: 'generic', annotations: {} });

    const generator = new TimoniManifestGenerator(cue);
    const clusters = new SimulatedClusters(generator, new SourceCache(), new RegistryClients().get({ source: { kind: 'anonymous' }, fingerprint: 'anonymous' }));
    const { app, call: api, metrics: readMetrics } = await startBenchHub({ dataDir: work, databaseUrl: pg.endpoint.url, runner: clusters, scheduler: { tickMs: 100, concurrency } });
    const call = (method: string, path: string, body?: unknown) => api<{ status: { targets: number; ready: number } }>(method, path, body);

    // the cost of one registration as the inventory grows: the mean of the last WINDOW before each size
    const sizes = [...new Set([Math.min(1000, n), n])];
    const perRegistration = new Map<number, number>();
    const t0 = performance.now();
    let windowStart = t0;
    for (let i = 0; i < n; i++) {
      if (sizes.some((size) => i === size - REGISTRATION_WINDOW)) windowStart = performance.now();
      await call('POST', '/api/v1/clusters', { name: `sim-${i}`, group: i % 2 ? 'production' : 'staging', mode: 'push', endpoint: { server: 'https://127.0.0.1:1' }, credentials: { token: `t-${i}` } });
      if (sizes.includes(i + 1)) perRegistration.set(i + 1, (performance.now() - windowStart) / Math.min(REGISTRATION_WINDOW, i + 1));
    }
    console.log(`register ${n} clusters through the API: ${(performance.now() - t0).toFixed(0)} ms`);
    for (const [size, ms] of perRegistration) console.log(`  one registration at ${size} clusters: ${ms.toFixed(1)} ms (mean of the last ${Math.min(REGISTRATION_WINDOW, size)})`);
    if (sizes.length === 2) console.log(`  cost at ${sizes[1]} / cost at ${sizes[0]}: ${(perRegistration.get(sizes[1])! / perRegistration.get(sizes[0])!).toFixed(2)}`);

    if (process.env.BENCH_CONVERGE === 'off') {
      await app.close();
      return;
    }
    const t1 = performance.now();
    await call('POST', '/api/v1/projects', { name: 'bench', namespace: 'apps', source: { repository: repo, tag: 'latest' }, targets: { groups: ['staging', 'production'] } });
    for (;;) {
      const p = await call('GET', '/api/v1/projects/bench');
      if (p.status.targets === n && p.status.ready === n) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const converge = performance.now() - t1;
    const s = generator.stats();
    console.log(`converge ${n} Targets (concurrency ${concurrency}): ${(converge / 1000).toFixed(1)} s, ${(n / (converge / 1000)).toFixed(0)} Targets/s`);
    console.log(`  instance renders ${clusters.renders}; module builds performed ${s.builds.misses} (shared ${s.builds.hits + s.builds.joins}); bundle loads ${s.bundles.misses}; project loads ${s.projectLoads}`);
    const metrics = await readMetrics();
    const resolutions = /flotilla_source_tag_resolutions_total\{result="success"\} (\d+)/.exec(metrics)?.[1];
    console.log(`  tag resolutions ${resolutions}; hub peak RSS ${mb(peak)}`);
    await app.close();
  } finally {
    clearInterval(sampler);
    await cue.close();
    await registry.stop();
    await pg.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
