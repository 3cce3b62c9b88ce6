// Part of npm run bench:cue: whole fresh processes building one instance —
// Flotilla as it ships (node on dist/: engine start, build; per runtime)
// against `timoni build web ./checksum -n apps -f a -f b` of the same module
// and values when TIMONI_BIN names a Timoni binary. BENCH_MODULE=<dir> builds
// that module instead (e.g. a checkout of podinfo's timoni/podinfo), with
// its own default values, as `timoni build <name> <dir> -n default`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');
const golden = join(root, 'libs', 'timoni', 'testdata', 'timoni-golden');
const dist = join(root, 'dist', 'libs');

// Plain JS on dist/, as the CLI runs; FLOTILLA_CUE_RUNTIME picks the runtime.
const PROBE = `
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { CueEngine, readFileTree } = require(${JSON.stringify(join(dist, 'cue', 'src', 'index.js'))});
const t = require(${JSON.stringify(join(dist, 'timoni', 'src', 'index.js'))});
const golden = ${JSON.stringify(golden)};
const custom = process.env.BENCH_MODULE;
(async () => {
  const cue = await CueEngine.start({ poolSize: 1 });
  const tree = readFileTree(custom || join(golden, 'modules', 'checksum'));
  const values = custom ? [] : ['checksum-a.cue', 'checksum-b.yaml'].map((f) => ({ path: 'values/' + f, content: readFileSync(join(golden, 'values', f), 'utf8') }));
  const module = { tree, treeHash: t.hashTree(tree), ref: { name: 'flotilla.test/bench', repository: 'file://bench', version: t.DEVEL_VERSION, digest: 'unknown' } };
  const build = await t.buildModule(cue, { instance: custom ? 'podinfo' : 'web', namespace: custom ? 'default' : 'apps', kubeVersion: '1.36.3', module, values });
  await cue.close();
  if (cue.runtime !== process.env.FLOTILLA_CUE_RUNTIME) throw new Error('ran on ' + cue.runtime);
  process.stdout.write(JSON.stringify(build.steps.flatMap((s) => s.objects)));
})().catch((err) => { console.error(err); process.exit(1); });
`;

/** Wall milliseconds of one run of the command. */
function timed(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv }): number {
  const t0 = performance.now();
  const res = spawnSync(cmd, args, { ...opts, encoding: 'utf8', timeout: 120_000 });
  const wallMs = performance.now() - t0;
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${res.error?.message ?? res.status}): ${res.stderr}`);
  return wallMs;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

export function coldProcessScenario(rounds: number): void {
  if (!existsSync(join(dist, 'timoni', 'src', 'index.js'))) {
    console.log(`cold process: ${dist} is missing, run npm run build first`);
    return;
  }
  const flotilla = (runtime: string) => timed(process.execPath, ['-e', PROBE], { env: { ...process.env, FLOTILLA_CUE_RUNTIME: runtime } });
  const timoniBin = process.env.TIMONI_BIN;
  const custom = process.env.BENCH_MODULE;
  const timoniArgs = custom
    ? ['build', 'podinfo', custom, '-n', 'default', '-o', 'json']
    : ['build', 'web', './checksum', '-n', 'apps', '-f', '../values/checksum-a.cue', '-f', '../values/checksum-b.yaml', '-o', 'json'];
  const timoni = () => timed(timoniBin!, timoniArgs, { cwd: join(golden, 'modules'), env: { ...process.env, TIMONI_KUBE_VERSION: '1.36.3' } });
  const node = () => timed(process.execPath, ['-e', ''], {});
  const runs: Record<string, number[]> = { native: [], wasm: [], timoni: [], node: [] };
  // Interleaved, so load from other work on the machine hits every side alike.
  for (let i = 0; i < rounds; i++) {
    runs.native.push(flotilla('native'));
    runs.wasm.push(flotilla('wasm'));
    runs.node.push(node());
    if (timoniBin) runs.timoni.push(timoni());
  }
  const t = timoniBin ? median(runs.timoni) : NaN;
  const ratio = (x: number) => (timoniBin ? `  ${(x / t).toFixed(2)}× timoni build` : '');
  const what = custom ? `${custom} with its default values` : 'libs/timoni/testdata/timoni-golden/modules/checksum with 2 values files';
  console.log(`cold process, build of ${what} (median of ${rounds}, wall):`);
  const line = (label: string, x: number, extra = '') => console.log(`  ${label.padEnd(40)}${x.toFixed(0).padStart(6)} ms${extra}`);
  line('flotilla on dist/, native helper', median(runs.native), ratio(median(runs.native)) + (timoniBin ? ' (goal ≤ 2×)' : ''));
  line('flotilla on dist/, wasm', median(runs.wasm), ratio(median(runs.wasm)));
  line("node -e '' (floor of any node process)", median(runs.node), ratio(median(runs.node)));
  if (timoniBin) line(`timoni build (${timoniBin})`, t);
  else console.log('  (set TIMONI_BIN to a Timoni v0.33 binary for the ratio against timoni build)');
}
