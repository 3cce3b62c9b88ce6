// npm run bench:cue — figures for the CUE engine.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { CueEngine } from '@flotilla/cue';
import { moduleBuildRequest, ms } from './module-request';
import { runawayTenantsScenario } from './runaway-tenants';

async function main(): Promise<void> {
  const pointer = JSON.parse(readFileSync(join(__dirname, '..', '.wasm-location.json'), 'utf8')) as { dir: string };
  const meta = JSON.parse(readFileSync(join(pointer.dir, 'meta.json'), 'utf8')) as { cueVersion: string; goVersion: string; size: number; buildMs: number };
  const poolSize = Math.max(1, availableParallelism());
  console.log(`CUE ${meta.cueVersion}, ${meta.goVersion} js/wasm, cue.wasm ${(meta.size / 1048576).toFixed(1)} MiB (built in ${ms(meta.buildMs)}), ${poolSize} core(s)`);

  let t = performance.now();
  const single = await CueEngine.start({ poolSize: 1 });
  console.log(`engine cold start, 1 worker:             ${ms(performance.now() - t)}`);
  await single.close();

  t = performance.now();
  const engine = await CueEngine.start({ poolSize });
  console.log(`engine start, ${poolSize} workers:                ${ms(performance.now() - t)}`);

  const req = await moduleBuildRequest(engine);
  t = performance.now();
  const first = await engine.evaluate(req);
  const objects = first.exports[0].fields!.reduce((n, f) => n + (JSON.parse(f.json!) as unknown[]).length, 0);
  console.log(`module build, cold (first call):         ${ms(performance.now() - t)}  (${objects} objects, ${Object.keys(req.files).length} files)`);

  const warm: number[] = [];
  for (let i = 0; i < 12; i++) {
    t = performance.now();
    await engine.evaluate(req);
    warm.push(performance.now() - t);
  }
  warm.sort((a, b) => a - b);
  console.log(`module build, warm (median of 12):       ${ms(warm[6])}  (min ${ms(warm[0])})`);

  const small = { files: { 'a.cue': 'package main\nx: {a: 1, b: a + 1}\n' }, exports: [{ path: 'x' }] };
  for (const [label, request, n] of [
    ['module builds', req, 24],
    ['small evaluations', small, 400],
  ] as const) {
    t = performance.now();
    await Promise.all(Array.from({ length: n }, () => engine.evaluate(request)));
    const s = (performance.now() - t) / 1000;
    console.log(`${`${label} per second, pool of ${poolSize}:`.padEnd(41)}${(n / s).toFixed(1)}  (${n} calls in ${s.toFixed(2)} s)`);
  }
  await engine.close();

  await runawayTenantsScenario(poolSize);

  // A warmed-up start measured in a fresh process: V8 shares compiled wasm
  // code between modules with the same bytes, so here it is already hot.
  const child = spawnSync(process.execPath, [join(__dirname, '..', '..', '..', 'scripts', 'run-ts.mjs'), join(__dirname, 'cue-warmup.bench.ts')], {
    encoding: 'utf8',
  });
  process.stdout.write(child.stdout + child.stderr);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
