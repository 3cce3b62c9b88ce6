// npm run bench:cue — figures for the CUE engine (run after npm run build:
// it uses the compiled dist/ code, the way the hub and agent do).
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';

const root = join(import.meta.dirname, '..', '..', '..');
const require = createRequire(join(root, 'dist', 'node_modules', 'x.js'));
const { CueEngine, readFileTree } = require('@flotilla/cue');

const testdata = join(import.meta.dirname, '..', 'testdata');
const ms = (x) => `${x.toFixed(0)} ms`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pointer = JSON.parse(readFileSync(join(root, 'libs', 'cue', '.wasm-location.json'), 'utf8'));
const meta = JSON.parse(readFileSync(join(pointer.dir, 'meta.json'), 'utf8'));
const poolSize = Math.max(1, availableParallelism());
console.log(`CUE ${meta.cueVersion} on ${meta.goVersion} js/wasm, cue.wasm ${(meta.size / 1048576).toFixed(1)} MiB (built in ${ms(meta.buildMs)}), ${poolSize} core(s)`);

// A realistic build: the webapp module with Timoni's schema overlay, merged
// values with 3 workers and the test step: 14 objects in 2 apply steps.
async function buildRequest(engine) {
  const tree = readFileTree(join(testdata, 'webapp'));
  tree['timoni.schema.cue'] = readFileSync(join(testdata, 'overlays', 'timoni.schema.cue'));
  const merged = await engine.mergeValues({
    base: { path: 'values.cue', content: tree['values.cue'] },
    overlays: [{ path: 'shop.cue', content: readFileSync(join(testdata, 'values', 'shop.cue')) }],
  });
  tree['values.cue'] = `package main\n\nvalues: ${merged.cue}\n`;
  return {
    files: tree,
    tags: { name: 'shop', namespace: 'apps' },
    tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.31.0' },
    checks: [{ path: 'timoni.instance', concrete: true, final: true }],
    exports: [{ path: 'timoni.apply', fields: true, yamlCompat: true }],
  };
}

let t = performance.now();
const single = await CueEngine.start({ poolSize: 1 });
console.log(`engine cold start, 1 worker:            ${ms(performance.now() - t)}`);
await single.close();

t = performance.now();
const engine = await CueEngine.start({ poolSize });
console.log(`engine cold start, ${poolSize} workers:            ${ms(performance.now() - t)}`);

const req = await buildRequest(engine);
t = performance.now();
const first = await engine.evaluate(req);
const objects = first.exports[0].fields.reduce((n, f) => n + JSON.parse(f.json).length, 0);
console.log(`module build, cold (first call):        ${ms(performance.now() - t)}  (${objects} objects, ${Object.keys(req.files).length} files)`);

const warm = [];
for (let i = 0; i < 12; i++) {
  t = performance.now();
  await engine.evaluate(req);
  warm.push(performance.now() - t);
}
console.log(`module build, warm (median of 12):      ${ms(median(warm))}  (min ${ms(Math.min(...warm))})`);

for (const [label, request, n] of [
  ['module builds', req, 24],
  ['small evaluations', { files: { 'a.cue': 'package main\nx: {a: 1, b: a + 1}\n' }, exports: [{ path: 'x' }] }, 400],
]) {
  t = performance.now();
  await Promise.all(Array.from({ length: n }, () => engine.evaluate(request)));
  const s = (performance.now() - t) / 1000;
  console.log(`${label} per second across the pool:`.padEnd(40) + `${(n / s).toFixed(1)}  (${n} calls in ${s.toFixed(2)} s)`);
}
await engine.close();

// The same cold build after start({ warmup: true }), in a fresh process:
// V8 shares compiled wasm code between modules with the same bytes, so in
// this process the code is already hot.
const child = spawnSync(process.execPath, [join(import.meta.dirname, 'cue-bench-warmup.mjs')], { encoding: 'utf8' });
process.stdout.write(child.stdout + child.stderr);
