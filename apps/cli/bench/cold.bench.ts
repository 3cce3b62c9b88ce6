// `npm run bench:cli`: a cold `flotilla project build` and `project vet`, as a
// user runs them (the package bin on dist/, a fresh process each time),
// against `timoni build` of the same module in the same rounds. The Project
// is made in a temporary directory: one component whose bundle names the
// module by a relative file:// URL, with the module's default values.
//
//   BENCH_MODULE=<dir>   the module (default: the golden `checksum` module);
//                        e.g. a checkout of podinfo's timoni/podinfo
//   TIMONI_BIN=<file>    a Timoni v0.33 binary, for the ratio (goal ≤ 2×)
//   BENCH_ROUNDS=<n>     rounds (default 15), interleaved so machine load
//                        falls on every side alike
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..', '..');
const bin = resolve(root, (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: { flotilla: string } }).bin.flotilla);
const moduleDir = resolve(process.env.BENCH_MODULE ?? join(root, 'libs', 'timoni', 'testdata', 'timoni-golden', 'modules', 'checksum'));
const instance = process.env.BENCH_MODULE ? basename(moduleDir) : 'web';
const namespace = process.env.BENCH_MODULE ? 'default' : 'apps';
const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const kubeVersion = '1.36.3';

interface Timed {
  wallMs: number;
  stdout: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env, cwd?: string): Timed {
  const t0 = performance.now();
  const res = spawnSync(cmd, args, { env, cwd, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 });
  const wallMs = performance.now() - t0;
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${res.error?.message ?? res.status}): ${res.stderr}`);
  return { wallMs, stdout: res.stdout };
}

function projectAround(module: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'flotilla-bench-cli-'));
  mkdirSync(join(dir, 'app'));
  cpSync(module, join(dir, 'app', 'module'), { recursive: true });
  writeFileSync(join(dir, 'project.cue'), 'project: {\n\tapiVersion: "v1alpha1"\n\tname: "bench"\n\tcomponents: app: bundle: ["./app/bundle.cue"]\n}\n');
  writeFileSync(
    join(dir, 'app', 'bundle.cue'),
    `bundle: {\n\tapiVersion: "v1alpha1"\n\tname: "bench"\n\tinstances: ${instance}: {\n\t\tmodule: url: "file://./module"\n\t\tnamespace: "${namespace}"\n\t}\n}\n`,
  );
  return dir;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
type Obj = { kind: string; metadata: { name: string } };
/** kind/name of every object: Timoni prints a v1 List, Flotilla an array. */
const names = (json: string) => {
  const parsed = JSON.parse(json) as Obj[] | { items: Obj[] };
  return (Array.isArray(parsed) ? parsed : parsed.items).map((o) => `${o.kind}/${o.metadata.name}`).sort();
};

function main(): void {
  const project = projectAround(moduleDir);
  // The code cache lives under XDG_CACHE_HOME: a fresh one shows the first run after an install.
  const cacheHome = mkdtempSync(join(tmpdir(), 'flotilla-bench-cache-'));
  const env = { ...process.env, XDG_CACHE_HOME: cacheHome };
  const build = ['project', 'build', project, '--kube-version', kubeVersion, '-o', 'json'];
  const vet = ['project', 'vet', project, '--kube-version', kubeVersion];
  const timoniBin = process.env.TIMONI_BIN;
  const timoniArgs = ['build', instance, moduleDir, '-n', namespace, '-o', 'json'];
  try {
    // Unmeasured: the first exec of a just-built CUE helper reads it from disk.
    const warmCache = mkdtempSync(join(tmpdir(), 'flotilla-bench-cache-'));
    run(process.execPath, [bin, ...vet], { ...process.env, XDG_CACHE_HOME: warmCache });
    rmSync(warmCache, { recursive: true, force: true });
    const first = run(process.execPath, [bin, ...build], env);
    if (timoniBin) {
      const theirs = names(run(timoniBin, timoniArgs, { ...process.env, TIMONI_KUBE_VERSION: kubeVersion }).stdout);
      const ours = names(first.stdout);
      if (JSON.stringify(theirs) !== JSON.stringify(ours)) throw new Error(`the two builds differ: timoni ${theirs.join(', ')}; flotilla ${ours.join(', ')}`);
    }
    const runs: Record<string, number[]> = { build: [], vet: [], timoni: [], node: [] };
    for (let i = 0; i < rounds; i++) {
      runs.build.push(run(process.execPath, [bin, ...build], env).wallMs);
      runs.vet.push(run(process.execPath, [bin, ...vet], env).wallMs);
      runs.node.push(run(process.execPath, ['-e', '']).wallMs);
      if (timoniBin) runs.timoni.push(run(timoniBin, timoniArgs, { ...process.env, TIMONI_KUBE_VERSION: kubeVersion }).wallMs);
    }
    const t = timoniBin ? median(runs.timoni) : NaN;
    const ratio = (x: number) => (timoniBin ? `  ${(x / t).toFixed(2)}× timoni build` : '');
    const line = (label: string, x: number, extra = '') => console.log(`  ${label.padEnd(46)}${x.toFixed(0).padStart(6)} ms${extra}`);
    console.log(`cold CLI, ${moduleDir} with its default values (median of ${rounds}, wall):`);
    line('flotilla project build, first run (no code cache)', first.wallMs, ratio(first.wallMs));
    line('flotilla project build', median(runs.build), ratio(median(runs.build)) + (timoniBin ? ' (goal ≤ 2×)' : ''));
    line('flotilla project vet', median(runs.vet), ratio(median(runs.vet)) + (timoniBin ? ' (goal ≤ 2×)' : ''));
    line("node -e '' (floor of any node process)", median(runs.node), ratio(median(runs.node)));
    if (timoniBin) line(`timoni build (${timoniBin})`, t);
    else console.log('  (set TIMONI_BIN to a Timoni v0.33 binary for the ratio against timoni build)');
  } finally {
    rmSync(project, { recursive: true, force: true });
    rmSync(cacheHome, { recursive: true, force: true });
  }
}

main();
