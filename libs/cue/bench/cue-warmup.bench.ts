// Part of npm run bench:cue, run in its own process: start with warm-up,
// then the first module build.
import { availableParallelism } from 'node:os';
import { CueEngine } from '@flotilla/cue';
import { moduleBuildRequest, ms } from './module-request';

async function main(): Promise<void> {
  const poolSize = Math.max(1, availableParallelism());
  let t = performance.now();
  const engine = await CueEngine.start({ poolSize, warmup: true });
  console.log(`wasm engine start with warm-up, ${poolSize} workers: ${ms(performance.now() - t)}  (fresh process)`);
  const req = await moduleBuildRequest(engine);
  t = performance.now();
  await engine.evaluate(req);
  console.log(`wasm module build, first call after warm-up: ${ms(performance.now() - t)}`);
  await engine.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
