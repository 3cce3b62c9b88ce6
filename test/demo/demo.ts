import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DemoError } from './demo-errors';
import { DAEMON_MAIN, demoDir, HUB_MAIN } from './demo-paths';
import { groupMembers, LOG_FILE, processAlive, readState, writeState, type DemoState } from './demo-state';
import { HubClient, projectTargets, type TargetView } from './hub-client';

// `npm run demo [-- up|down|status]`: a demo fleet on this machine. `up`
// starts the supervisor (fleet-daemon.ts) detached, relays its progress,
// waits until every Target of the sample Project is Ready and prints the
// status page's URL and the admin token; `down` stops every process of the
// demo and removes its directory.

const usage = 'usage: npm run demo [-- up | down | status]';
/** how long the start of the services may take (three clusters on a busy 2-core machine) */
const START_TIMEOUT_MS = Number(process.env.FLOTILLA_DEMO_START_TIMEOUT_MS ?? 300_000);
/** how long the Project may take to be Ready everywhere once it was created */
const CONVERGE_TIMEOUT_MS = 180_000;
/** how long down waits for the supervisor's own orderly stop before SIGKILL */
const STOP_GRACE_MS = 30_000;

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Relays what the supervisor wrote to demo.log since the last call. */
function relay(dir: string): () => void {
  let offset = 0;
  return () => {
    let text: string;
    try {
      text = readFileSync(join(dir, LOG_FILE), 'utf8');
    } catch {
      return;
    }
    const end = text.lastIndexOf('\n') + 1;
    if (end > offset) process.stdout.write(text.slice(offset, end).replace(/^(?=.)/gm, '  '));
    offset = Math.max(offset, end);
  };
}

function running(state: DemoState | undefined): state is DemoState {
  return state !== undefined && processAlive(state.pid);
}

function printAccess(state: DemoState): void {
  print(`\nstatus page: ${state.hubUrl}/`);
  print(`admin token: ${state.adminToken}`);
  print(`  (paste it into the page's sign-in; for the API: curl -H "Authorization: Bearer $TOKEN" ${state.hubUrl}/api/v1/projects/${state.project}/targets)`);
  print(`logs and data: ${demoDir()}`);
  print('stop everything: npm run demo -- down');
}

async function waitForStart(dir: string, pid: number): Promise<DemoState> {
  const show = relay(dir);
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    show();
    const state = readState(dir);
    if (state?.phase === 'ready') return state;
    if (state?.phase === 'failed') throw new DemoError(`the demo did not start: ${state.error}\nlogs are in ${dir}; clean up with \`npm run demo -- down\``);
    if (!processAlive(pid)) throw new DemoError(`the demo's supervisor (pid ${pid}) exited while starting; see ${join(dir, LOG_FILE)}; clean up with \`npm run demo -- down\``);
    if (Date.now() > deadline) throw new DemoError(`the demo did not start within ${START_TIMEOUT_MS / 1000}s; see ${join(dir, LOG_FILE)}; clean up with \`npm run demo -- down\``);
    await sleep(200);
  }
}

/** Polls the Project's Targets until every one is Ready, printing each change of phase. */
async function waitForConvergence(state: DemoState): Promise<TargetView[]> {
  const hub = new HubClient(state.hubUrl!, state.adminToken!);
  const expected = state.clusters?.length ?? 0;
  const deadline = Date.now() + CONVERGE_TIMEOUT_MS;
  let last = '';
  let targets: TargetView[] = [];
  for (;;) {
    try {
      targets = await projectTargets(hub, state.project!);
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    const line = targets.map((t) => `${t.cluster}=${t.phase}`).sort().join('  ');
    if (line && line !== last) print(`  Targets: ${line}`);
    last = line;
    if (targets.length === expected && targets.every((t) => t.phase === 'Ready')) return targets;
    if (Date.now() > deadline) throw new DemoError(`the Project ${state.project} was not Ready on every cluster within ${CONVERGE_TIMEOUT_MS / 1000}s (last seen: ${line || 'no Targets'}); the fleet is still up for a look at ${state.hubUrl}/ (logs in ${demoDir()}); stop it with \`npm run demo -- down\``);
    await sleep(500);
  }
}

async function up(): Promise<void> {
  const dir = demoDir();
  const previous = readState(dir);
  if (running(previous)) {
    print(`the demo is already up (supervisor pid ${previous.pid}, phase ${previous.phase}); \`npm run demo -- down\` stops it`);
    if (previous.phase === 'ready') printAccess(previous);
    return;
  }
  // what a crashed or killed demo left behind
  if (existsSync(dir)) await down({ quiet: true });
  if (!existsSync(HUB_MAIN) || !existsSync(DAEMON_MAIN)) throw new DemoError(`${DAEMON_MAIN} or ${HUB_MAIN} is missing: run \`npm run demo\` (it builds first)`);

  const started = Date.now();
  mkdirSync(dir, { recursive: true });
  const log = openSync(join(dir, LOG_FILE), 'a');
  let pid: number;
  try {
    // its own session (and process group): it outlives this command, and down can reach every process it started
    const child = spawn(process.execPath, [DAEMON_MAIN, dir], { detached: true, stdio: ['ignore', log, log], env: process.env });
    if (child.pid === undefined) throw new DemoError(`could not start ${DAEMON_MAIN}`);
    pid = child.pid;
    child.unref();
  } finally {
    closeSync(log);
  }
  writeState(dir, { pid, startedAt: new Date(started).toISOString(), phase: 'starting' });
  print(`starting the demo fleet (supervisor pid ${pid}, state in ${dir})`);
  // the supervisor rewrites state.json once it is up; wait for that
  const state = await waitForStart(dir, pid);
  print('waiting for the fleet to converge');
  await waitForConvergence(state);
  print(`\nthe fleet converged: Project ${state.project} Ready on ${state.clusters?.map((c) => c.name).join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  printAccess(state);
}

async function down(options: { quiet?: boolean } = {}): Promise<void> {
  const dir = demoDir();
  const state = readState(dir);
  if (state) {
    if (processAlive(state.pid)) {
      process.kill(state.pid, 'SIGTERM');
      const deadline = Date.now() + STOP_GRACE_MS;
      while (processAlive(state.pid) && Date.now() < deadline) await sleep(100);
    }
    // anything the supervisor did not stop in time, or left when it crashed
    const deadline = Date.now() + 10_000;
    for (;;) {
      const left = groupMembers(state.pid);
      if (left.length === 0) break;
      if (Date.now() > deadline) throw new DemoError(`processes ${left.join(', ')} of the demo survived SIGKILL; ${dir} is kept`);
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
      await sleep(100);
    }
  }
  const existed = existsSync(dir);
  rmSync(dir, { recursive: true, force: true });
  if (!options.quiet) print(existed ? `the demo is down; removed ${dir}` : 'the demo was not running');
}

function status(): void {
  const state = readState(demoDir());
  if (!running(state)) return print('the demo is not running');
  print(`the demo is up (supervisor pid ${state.pid}, phase ${state.phase})`);
  if (state.phase === 'ready') printAccess(state);
}

async function main(argv: string[]): Promise<void> {
  const [command = 'up', ...rest] = argv;
  if (rest.length) throw new DemoError(usage);
  if (command === 'up') return up();
  if (command === 'down') return down();
  if (command === 'status') return status();
  throw new DemoError(usage);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
