// Part of npm run bench:cue: whole fresh processes building one instance —
// Flotilla (node, engine start, build; per runtime) against `timoni build`
// of the same module and values when TIMONI_BIN names a Timoni binary.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');
const golden = join(root, 'libs', 'timoni', 'testdata', 'timoni-golden');

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
  const flotilla = (runtime: string) => timed(process.execPath, [join(root, 'scripts', 'run-ts.mjs'), join(root, 'libs', 'timoni', 'bench', 'cold-build.ts')], { env: { ...process.env, FLOTILLA_CUE_RUNTIME: runtime } });
  const timoniBin = process.env.TIMONI_BIN;
  const timoni = () =>
    timed(timoniBin!, ['build', 'web', './checksum', '-n', 'apps', '-f', '../values/checksum-a.cue', '-f', '../values/checksum-b.yaml', '-o', 'json'], {
      cwd: join(golden, 'modules'),
      env: { ...process.env, TIMONI_KUBE_VERSION: '1.36.3' },
    });
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
  console.log(`cold process, build of timoni-golden/checksum (median of ${rounds}, wall):`);
  console.log(`  flotilla, native helper:               ${median(runs.native).toFixed(0)} ms${ratio(median(runs.native))}`);
  console.log(`  flotilla, wasm:                        ${median(runs.wasm).toFixed(0)} ms${ratio(median(runs.wasm))}`);
  console.log(`  node -e '' (floor of any node process): ${median(runs.node).toFixed(0)} ms${ratio(median(runs.node))}`);
  if (timoniBin) console.log(`  timoni build (${timoniBin}):  ${t.toFixed(0)} ms`);
  else console.log('  (set TIMONI_BIN to a Timoni v0.33 binary for the ratio against timoni build)');
}
