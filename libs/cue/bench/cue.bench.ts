// npm run bench:cue — figures for the CUE engine, each runtime beside the
// reference measured in the same run: the same Go code built natively,
// evaluating the same request in-process (cue-native bench).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { CueEngine, type EvaluateRequest } from '@flotilla/cue';
import { coldProcessScenario } from './cold-process';
import { moduleBuildRequest, ms } from './module-request';
import { nativeEvaluateTimes } from './native-reference';
import { runawayTenantsScenario } from './runaway-tenants';

const WARM = 12;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

interface RuntimeFigures {
  startMs: number;
  firstMs: number;
  warm: number[];
  buildsPerSecond: number;
  smallPerSecond: number;
}

async function measure(runtime: 'native' | 'wasm', poolSize: number): Promise<RuntimeFigures> {
  let t = performance.now();
  const engine = await CueEngine.start({ poolSize, runtime });
  const startMs = performance.now() - t;
  const req = await moduleBuildRequest(engine);
  t = performance.now();
  await engine.evaluate(req);
  const firstMs = performance.now() - t;
  const warm: number[] = [];
  for (let i = 0; i < WARM; i++) {
    t = performance.now();
    await engine.evaluate(req);
    warm.push(performance.now() - t);
  }
  const rate = async (request: EvaluateRequest, n: number) => {
    const t0 = performance.now();
    await Promise.all(Array.from({ length: n }, () => engine.evaluate(request)));
    return n / ((performance.now() - t0) / 1000);
  };
  const buildsPerSecond = await rate(req, 24);
  const smallPerSecond = await rate({ files: { 'a.cue': 'package main\nx: {a: 1, b: a + 1}\n' }, exports: [{ path: 'x' }] }, 400);
  await engine.close();
  return { startMs, firstMs, warm, buildsPerSecond, smallPerSecond };
}

async function main(): Promise<void> {
  const pointer = JSON.parse(readFileSync(join(__dirname, '..', '.wasm-location.json'), 'utf8')) as { dir: string };
  const meta = JSON.parse(readFileSync(join(pointer.dir, 'meta.json'), 'utf8')) as { cueVersion: string; goVersion: string; size: number; nativeSize: number; buildMs: number };
  const poolSize = Math.max(1, availableParallelism());
  console.log(`CUE ${meta.cueVersion}, ${meta.goVersion}: cue.wasm ${(meta.size / 1048576).toFixed(1)} MiB, cue-native ${(meta.nativeSize / 1048576).toFixed(1)} MiB (built in ${ms(meta.buildMs)}), ${poolSize} core(s), pool of ${poolSize}`);

  const probe = await CueEngine.start({ poolSize: 1, runtime: 'wasm' });
  const req = await moduleBuildRequest(probe);
  await probe.close();
  // The reference: native Go, first call and warm median, same request.
  const reference = nativeEvaluateTimes(join(pointer.dir, 'cue-native'), req, WARM + 1);
  const ref = median(reference.slice(1));

  const figures = { native: await measure('native', poolSize), wasm: await measure('wasm', poolSize) };
  const row = (label: string, f: (r: RuntimeFigures) => string) => console.log(`${label.padEnd(40)}${f(figures.native).padEnd(26)}${f(figures.wasm)}`);
  console.log(`${''.padEnd(40)}${'native helper'.padEnd(26)}wasm`);
  row('engine start', (r) => ms(r.startMs));
  row('module build, first call', (r) => ms(r.firstMs));
  row(`module build, warm (median of ${WARM})`, (r) => `${ms(median(r.warm))} (${(median(r.warm) / ref).toFixed(2)}×)`);
  row(`module builds per second`, (r) => r.buildsPerSecond.toFixed(1));
  row(`small evaluations per second`, (r) => r.smallPerSecond.toFixed(0));
  console.log(`reference, native Go in-process:        first ${ms(reference[0])}, warm median ${ms(ref)} (× = ratio to these; goal for warm builds ≤ 1.20×)`);

  coldProcessScenario(5);

  await runawayTenantsScenario(poolSize);

  // The wasm fallback's warmed-up start, in a fresh process (V8 shares
  // compiled wasm code between modules with the same bytes in one process).
  const child = spawnSync(process.execPath, [join(__dirname, '..', '..', '..', 'scripts', 'run-ts.mjs'), join(__dirname, 'cue-warmup.bench.ts')], {
    encoding: 'utf8',
    env: { ...process.env, FLOTILLA_CUE_RUNTIME: 'wasm' },
  });
  process.stdout.write(child.stdout + child.stderr);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
