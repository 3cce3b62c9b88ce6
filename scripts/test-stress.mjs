// Runs the scheduler, replica and rollout suites (push and agent) again and again beside busy
// loops that keep every core saturated, and prints how many runs of each
// failed: races that an idle machine hides show up here. Not part of npm test.
//   npm run test:stress -- [--runs N] [--suite PATH]...
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const runs = Number(valueOf('--runs') ?? 5);
const chosen = args.flatMap((a, i) => (a === '--suite' ? [args[i + 1]] : []));
const suites = chosen.length > 0 ? chosen : [
  'apps/hub/src/scheduler/scheduler.e2e-spec.ts',
  'apps/hub/src/scheduler/lease.repository.e2e-spec.ts',
  'test/e2e/replicas.e2e-spec.ts',
  'test/e2e/rollout.e2e-spec.ts',
  'apps/hub/src/scheduler/lease-batch.repository.e2e-spec.ts',
  'apps/hub/src/agents/agent-replicas.e2e-spec.ts',
  'apps/hub/src/agents/agent-rollout.e2e-spec.ts',
  'apps/hub/src/agents/agent-desired-state.e2e-spec.ts',
  'apps/hub/src/agents/agent-stream.e2e-spec.ts',
];
if (!Number.isInteger(runs) || runs < 1) usage(`--runs takes a whole number above 0, not ${valueOf('--runs')}`);

function valueOf(flag) {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

function usage(message) {
  console.error(`test:stress: ${message}\nusage: npm run test:stress -- [--runs N] [--suite PATH]...`);
  process.exit(2);
}

// The e2e suites start compiled hubs: build once, before the cores are busy.
const built = spawnSync('npm', ['run', 'build:test', '--silent'], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);

const burners = Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stopBurners = () => burners.forEach((b) => b.kill('SIGKILL'));
process.on('exit', stopBurners);
process.on('SIGINT', () => process.exit(130));

const results = new Map(suites.map((s) => [s, { passed: 0, failed: 0, seconds: [] }]));
for (let i = 1; i <= runs; i++) {
  for (const suite of suites) {
    const started = Date.now();
    const code = await new Promise((done) => {
      const jest = spawn(process.execPath, ['node_modules/jest/bin/jest.js', '--runInBand', suite], {
        cwd: root,
        env: { ...process.env, NODE_OPTIONS: '--experimental-vm-modules' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      jest.stdout.on('data', (d) => (output += d));
      jest.stderr.on('data', (d) => (output += d));
      jest.on('close', (c) => {
        if (c !== 0) process.stdout.write(`\n--- ${suite}, run ${i}: failed ---\n${output.slice(-6000)}\n`);
        done(c);
      });
    });
    const r = results.get(suite);
    r[code === 0 ? 'passed' : 'failed']++;
    r.seconds.push(Math.round((Date.now() - started) / 1000));
    console.log(`run ${i}/${runs} ${suite}: ${code === 0 ? 'passed' : 'FAILED'} in ${r.seconds.at(-1)} s`);
  }
}
stopBurners();

console.log(`\n${availableParallelism()} busy loops beside the suites; ${runs} run(s) each`);
console.log('suite'.padEnd(56), 'passed', 'failed', 'seconds (min-max)');
let failed = 0;
for (const [suite, r] of results) {
  failed += r.failed;
  console.log(suite.padEnd(56), String(r.passed).padStart(6), String(r.failed).padStart(6), `${Math.min(...r.seconds)}-${Math.max(...r.seconds)}`);
}
const total = runs * suites.length;
console.log(`\n${total - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
