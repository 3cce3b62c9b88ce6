// Part of npm run bench:cue, run in its own process: start with warm-up,
// then the first module build.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';

const root = join(import.meta.dirname, '..', '..', '..');
const require = createRequire(join(root, 'dist', 'node_modules', 'x.js'));
const { CueEngine, readFileTree } = require('@flotilla/cue');
const testdata = join(import.meta.dirname, '..', 'testdata');
const poolSize = Math.max(1, availableParallelism());

let t = performance.now();
const engine = await CueEngine.start({ poolSize, warmup: true });
console.log(`engine start with warm-up, ${poolSize} workers:  ${(performance.now() - t).toFixed(0)} ms  (fresh process)`);
const tree = readFileTree(join(testdata, 'webapp'));
tree['timoni.schema.cue'] = readFileSync(join(testdata, 'overlays', 'timoni.schema.cue'));
const merged = await engine.mergeValues({
  base: { path: 'values.cue', content: tree['values.cue'] },
  overlays: [{ path: 'shop.cue', content: readFileSync(join(testdata, 'values', 'shop.cue')) }],
});
tree['values.cue'] = `package main\n\nvalues: ${merged.cue}\n`;
t = performance.now();
await engine.evaluate({
  files: tree,
  tags: { name: 'shop', namespace: 'apps' },
  tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.31.0' },
  checks: [{ path: 'timoni.instance', concrete: true, final: true }],
  exports: [{ path: 'timoni.apply', fields: true, yamlCompat: true }],
});
console.log(`module build, first call after warm-up: ${(performance.now() - t).toFixed(0)} ms`);
await engine.close();
