// Runs suites on a Node LTS line in support (24), beside the machine's own
// Node that `npm test` uses: what the images ship is tested on the Node they
// run. The binary comes from the npm registry (node-linux-<arch>) and is
// cached per version under ~/.cache/flotilla, so only the first run pays.
//   node scripts/test-on-node-lts.mjs [jest args...]   (default: the push-mode e2e and agent suites)
// Expects a built tree (`npm run build:test`), as `npm test` leaves it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

const NODE_VERSION = '24.21.0';
// apps/hub/src/main.e2e-spec.ts: the compiled entry point the hub image runs, and its stop on SIGTERM
const DEFAULT_SUITES = ['test/e2e/push-mode.e2e-spec.ts', 'apps/hub/src/scheduler/push-mode.e2e-spec.ts', 'apps/hub/src/main.e2e-spec.ts', 'apps/agent'];

const root = resolve(import.meta.dirname, '..');
const cacheRoot = process.env.FLOTILLA_CACHE_DIR || join(homedir(), '.cache', 'flotilla');
const pkg = `node-${process.platform}-${process.arch}`;
const dir = join(cacheRoot, `${pkg}-${NODE_VERSION}`);
const binary = join(dir, 'node_modules', pkg, 'bin', 'node');
const done = join(dir, '.installed');

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (res.error) throw new Error(`${cmd}: ${res.error.message}`);
  return res.status ?? 1;
}

if (!existsSync(done)) {
  // into a fresh directory renamed into place, so a cut-off install never counts as done
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  console.log(`node-lts: installing ${pkg}@${NODE_VERSION} from the npm registry`);
  const status = run('npm', ['install', '--prefix', tmp, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `${pkg}@${NODE_VERSION}`]);
  if (status !== 0) {
    console.error(`node-lts: npm install ${pkg}@${NODE_VERSION} failed (exit ${status})`);
    process.exit(status);
  }
  writeFileSync(join(tmp, '.installed'), `${NODE_VERSION}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
}
const version = spawnSync(binary, ['--version'], { encoding: 'utf8' });
if (version.status !== 0 || version.stdout.trim() !== `v${NODE_VERSION}`) {
  console.error(`node-lts: ${binary} did not answer v${NODE_VERSION} (${version.stderr || version.stdout})`);
  process.exit(1);
}
console.log(`node-lts: running the suites on ${version.stdout.trim()}`);

const args = process.argv.slice(2);
const status = run(binary, [join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--runInBand', ...(args.length > 0 ? args : DEFAULT_SUITES)], {
  cwd: root,
  // child processes the suites start (the compiled hub and agent) run on the same Node
  env: { ...process.env, NODE_OPTIONS: '--experimental-vm-modules', PATH: `${join(dir, 'node_modules', pkg, 'bin')}:${process.env.PATH}` },
});
process.exit(status);
