// npm run bench:timoni — module build time per instance, cold and cached,
// and cache behaviour when one bundle is built for 1,000 clusters of a group.
// Uses the local fixtures (no registry): the figures are CUE evaluation and
// cache costs, not network.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { CueEngine, readFileTree } from '@flotilla/cue';
import { RegistryClient } from '@flotilla/oci';
import { ComponentBuilder, CueHealthCheckEvaluator, ModuleBuilder, ModuleFetcher, buildModule, hashTree, loadProject, moduleName, type LoadedModule } from '@flotilla/timoni';

const TESTDATA = join(__dirname, '..', 'testdata');
const ms = (t0: number) => performance.now() - t0;
const fmt = (n: number) => `${n.toFixed(2)} ms`;

async function main(): Promise<void> {
  const poolSize = Math.max(1, Math.min(2, availableParallelism()));
  const cue = await CueEngine.start({ poolSize, warmup: true });
  console.log(`CUE engine: ${poolSize} workers, started in ${fmt(cue.startMs)}`);
  const tree = readFileTree(join(TESTDATA, 'modules', 'app'));
  const module: LoadedModule = { tree, treeHash: hashTree(tree), ref: { name: await moduleName(cue, tree, 'app'), repository: 'file://app', version: '1.0.0', digest: 'unknown' } };
  const values = (i: number) => [{ path: 'v.json', content: JSON.stringify({ values: { replicas: i, widget: { enabled: true }, test: { enabled: i % 2 === 0 } } }) }];

  // Cold: distinct inputs, each a full evaluation (sequential to time one build).
  const N = 20;
  const builder = new ModuleBuilder(cue);
  const times: number[] = [];
  let t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await builder.build({ instance: `app-${i}`, namespace: 'apps', module, values: values(i) });
    times.push(ms(t));
  }
  const cold = ms(t0) / N;
  const sorted = [...times].sort((a, b) => a - b);
  console.log(`cold builds: first ${fmt(times[0])}, median ${fmt(sorted[N >> 1])}, max ${fmt(sorted[N - 1])}`);
  // Cached: the same inputs again.
  t0 = performance.now();
  for (let r = 0; r < 10; r++) for (let i = 0; i < N; i++) await builder.build({ instance: `app-${i}`, namespace: 'apps', module, values: values(i) });
  const cached = ms(t0) / (N * 10);
  // Parallel cold throughput across the pool.
  t0 = performance.now();
  await Promise.all(Array.from({ length: N }, (_, i) => buildModule(cue, { instance: `p-${i}`, namespace: 'apps', module, values: values(i) })));
  const parallel = ms(t0) / N;
  console.log(`module build per instance: cold ${fmt(cold)}, cached ${fmt(cached)}, cold in parallel ${fmt(parallel)} (${N} instances)`);

  // 1,000 clusters sharing a group: one component of the diamond project.
  const files = readFileTree(TESTDATA);
  const { project } = await loadProject(cue, files, { path: 'projects/diamond/project.cue' });
  const infra = project.components.find((c) => c.name === 'infra')!;
  const fleetBuilder = new ModuleBuilder(cue);
  const components = new ComponentBuilder(cue, new ModuleFetcher(cue, new RegistryClient()), fleetBuilder);
  const CLUSTERS = 1000;
  t0 = performance.now();
  await Promise.all(Array.from({ length: CLUSTERS }, (_, i) => components.build(files, infra, { cluster: { name: `cluster-${i}`, group: 'production' } })));
  const fleet = ms(t0);
  const b = fleetBuilder.stats();
  const bundles = components.bundleStats();
  const answered = (s: typeof b) => s.hits + s.joins + s.misses;
  console.log(`1,000 clusters, one group: ${fmt(fleet)} total, ${fmt(fleet / CLUSTERS)} per cluster`);
  console.log(`  module builds: ${b.misses} evaluated, ${b.hits} hits, ${b.joins} joined in flight; hit rate ${(((b.hits + b.joins) / answered(b)) * 100).toFixed(1)}%`);
  console.log(`  bundle loads:  ${bundles.misses} evaluated, ${bundles.hits} hits, ${bundles.joins} joined; hit rate ${(((bundles.hits + bundles.joins) / answered(bundles)) * 100).toFixed(1)}%`);

  // A bundle that reads the cluster name (not used in values): each cluster
  // loads its own bundle, the module still builds once.
  const named = { ...files, 'named/bundle.cue': 'bundle: {\n\t_n: string @timoni(runtime:string:TIMONI_CLUSTER_NAME)\n\tapiVersion: "v1alpha1"\n\tname: "named"\n\tinstances: app: {\n\t\tmodule: url: "file://../modules/app"\n\t\tnamespace: "apps"\n\t\tvalues: message: "same for all"\n\t}\n}\n' };
  const namedComponent = { ...infra, name: 'named', bundle: ['named/bundle.cue'], runtime: [] };
  const namedBuilder = new ModuleBuilder(cue);
  const namedComponents = new ComponentBuilder(cue, new ModuleFetcher(cue, new RegistryClient()), namedBuilder);
  const NAMED = 200;
  t0 = performance.now();
  await Promise.all(Array.from({ length: NAMED }, (_, i) => namedComponents.build(named, namedComponent, { cluster: { name: `n-${i}`, group: 'production' } })));
  const namedMs = ms(t0);
  console.log(`${NAMED} clusters, bundle reads the cluster name: ${fmt(namedMs)} total, ${fmt(namedMs / NAMED)} per cluster; bundle loads ${namedComponents.bundleStats().misses}, module builds ${namedBuilder.stats().misses}`);

  // Health check evaluation against a live-looking object.
  const build = await builder.build({ instance: 'app-0', namespace: 'apps', module, values: values(0) });
  const evaluator = new CueHealthCheckEvaluator(cue, build);
  const obj = (i: number) => ({ apiVersion: 'cache.flotilla.test/v1', kind: 'Redis', metadata: { name: `r${i}`, generation: 1 }, status: { observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] } });
  t0 = performance.now();
  for (let i = 0; i < 10; i++) await evaluator.evaluate(obj(i));
  const hcCold = ms(t0) / 10;
  t0 = performance.now();
  for (let i = 0; i < 10; i++) await evaluator.evaluate(obj(i));
  console.log(`health check per object: ${fmt(hcCold)} evaluated, ${fmt(ms(t0) / 10)} unchanged (cached)`);
  await cue.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
