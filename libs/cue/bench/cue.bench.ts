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

const ROUNDS = 4;
const PER_ROUND = 3;
const REFERENCE_WARMUP = 8;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

interface RuntimeFigures {
  startMs: number;
  firstMs: number;
  warm: number[];
  buildsPerSecond: number;
  smallPerSecond: number;
}

async function timeCalls(engine: CueEngine, req: EvaluateRequest, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await engine.evaluate(req);
    out.push(performance.now() - t);
  }
  return out;
}

async function rate(engine: CueEngine, request: EvaluateRequest, n: number): Promise<number> {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: n }, () => engine.evaluate(request)));
  return n / ((performance.now() - t0) / 1000);
}

async function main(): Promise<void> {
  const pointer = JSON.parse(readFileSync(join(__dirname, '..', '.wasm-location.json'), 'utf8')) as { dir: string };
  const meta = JSON.parse(readFileSync(join(pointer.dir, 'meta.json'), 'utf8')) as { cueVersion: string; goVersion: string; size: number; nativeSize: number; buildMs: number };
  const poolSize = Math.max(1, availableParallelism());
  console.log(`CUE ${meta.cueVersion}, ${meta.goVersion}: cue.wasm ${(meta.size / 1048576).toFixed(1)} MiB, cue-native ${(meta.nativeSize / 1048576).toFixed(1)} MiB (built in ${ms(meta.buildMs)}), ${poolSize} core(s), pool of ${poolSize}`);

  const engines = {} as Record<'native' | 'wasm', CueEngine>;
  const figures = {} as Record<'native' | 'wasm', RuntimeFigures>;
  let req: EvaluateRequest | undefined;
  for (const runtime of ['native', 'wasm'] as const) {
    const t = performance.now();
    const engine = await CueEngine.start({ poolSize, runtime });
    const startMs = performance.now() - t;
    req ??= await moduleBuildRequest(engine);
    const [firstMs] = await timeCalls(engine, req, 1);
    engines[runtime] = engine;
    figures[runtime] = { startMs, firstMs, warm: [], buildsPerSecond: 0, smallPerSecond: 0 };
  }
  // Warm builds paired in time: each round runs the native Go reference
  // (in-process, its first REFERENCE_WARMUP calls dropped so it is as warm
  // as the long-lived engines), then each runtime, so load from other work
  // on the machine falls on all three alike.
  const binary = join(pointer.dir, 'cue-native');
  const reference: number[] = [];
  let referenceFirst = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const times = nativeEvaluateTimes(binary, req!, REFERENCE_WARMUP + PER_ROUND);
    referenceFirst = times[0];
    reference.push(...times.slice(REFERENCE_WARMUP));
    for (const runtime of ['native', 'wasm'] as const) figures[runtime].warm.push(...(await timeCalls(engines[runtime], req!, PER_ROUND)));
  }
  const small: EvaluateRequest = { files: { 'a.cue': 'package main\nx: {a: 1, b: a + 1}\n' }, exports: [{ path: 'x' }] };
  for (const runtime of ['native', 'wasm'] as const) {
    figures[runtime].buildsPerSecond = await rate(engines[runtime], req!, 24);
    figures[runtime].smallPerSecond = await rate(engines[runtime], small, 400);
    await engines[runtime].close();
  }
  const ref = median(reference);
  const row = (label: string, f: (r: RuntimeFigures) => string) => console.log(`${label.padEnd(40)}${f(figures.native).padEnd(26)}${f(figures.wasm)}`);
  console.log(`${''.padEnd(40)}${'native helper'.padEnd(26)}wasm`);
  row('engine start', (r) => ms(r.startMs));
  row('module build, first call', (r) => ms(r.firstMs));
  row(`module build, warm (median of ${ROUNDS * PER_ROUND})`, (r) => `${ms(median(r.warm))} (${(median(r.warm) / ref).toFixed(2)}×)`);
  row(`module builds per second`, (r) => r.buildsPerSecond.toFixed(1));
  row(`small evaluations per second`, (r) => r.smallPerSecond.toFixed(0));
  console.log(`reference, native Go in-process:        warm median ${ms(ref)}, first call of a process ${ms(referenceFirst)}`);
  console.log(`  (× = warm build / reference, measured in the same rounds; goal ≤ 1.20×)`);

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
