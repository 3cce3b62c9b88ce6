// `npm run demo [-- up|down|status]`: builds what the demo runs (dist and the
// cached Kubernetes binaries, as `npm run build:test`) before `up`, then
// hands over to the compiled demo (test/demo/demo.ts). `down` and `status`
// need no build.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const demo = join(root, 'dist/test/demo/demo.js');
const command = args[0] ?? 'up';

if (command === 'up' || !existsSync(demo)) {
  const started = Date.now();
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), '--test-tools'], { stdio: 'inherit', cwd: root });
  if (build.status !== 0) process.exit(build.status ?? 1);
  console.log(`demo: built in ${((Date.now() - started) / 1000).toFixed(1)}s`);
}
const run = spawnSync(process.execPath, [demo, ...args], { stdio: 'inherit', cwd: root });
process.exit(run.status ?? 1);
