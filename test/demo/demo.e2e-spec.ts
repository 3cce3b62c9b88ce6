import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupMembers, readState, type DemoState } from './demo-state';
import { HubClient, projectTargets } from './hub-client';

// `npm run demo` as a newcomer runs it, on the compiled demo (npm test
// builds first): up in a directory of its own, every Target of the sample
// Project Ready through the hub's API, and down leaving no process and no
// file behind.

jest.setTimeout(420_000);

const DEMO_MAIN = join(__dirname, '../../dist/test/demo/demo.js');
const dir = join(mkdtempSync(join(tmpdir(), 'flotilla-demo-spec-')), 'demo');
let state: DemoState | undefined;

/** Runs the compiled demo with `command`; resolves with its exit code and output. */
function demo(command: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [DEMO_MAIN, command], { env: { ...process.env, FLOTILLA_DEMO_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

afterAll(async () => {
  // a failed test must not leave a fleet running
  if (existsSync(dir)) await demo('down');
  rmSync(join(dir, '..'), { recursive: true, force: true });
});

it('starts a fleet that converges, says so when started again, and down removes every process and file', async () => {
  const started = await demo('up');
  expect({ code: started.code, output: started.output }).toMatchObject({ code: 0 });
  expect(started.output).toMatch(/the fleet converged: Project hello Ready on staging-1, production-1, production-2 in [\d.]+s/);
  state = readState(dir);
  expect(state).toMatchObject({ phase: 'ready', project: 'hello' });
  expect(started.output).toContain(`status page: ${state!.hubUrl}/`);
  expect(started.output).toContain(`admin token: ${state!.adminToken}`);

  // what the demo printed is true: the hub says every Target is Ready
  const targets = await projectTargets(new HubClient(state!.hubUrl!, state!.adminToken!), 'hello');
  expect(targets.map((t) => [t.cluster, t.phase]).sort()).toEqual([
    ['production-1', 'Ready'],
    ['production-2', 'Ready'],
    ['staging-1', 'Ready'],
  ]);
  expect(new URL(state!.hubUrl!).hostname).toBe('127.0.0.1');

  const again = await demo('up');
  expect(again.code).toBe(0);
  expect(again.output).toContain(`the demo is already up (supervisor pid ${state!.pid}, phase ready)`);

  // the supervisor, the registry, three etcd + kube-apiserver pairs, the hub and the agent
  expect(groupMembers(state!.pid).length).toBeGreaterThanOrEqual(10);
  const stopped = await demo('down');
  expect(stopped).toEqual({ code: 0, output: `the demo is down; removed ${dir}\n` });
  expect(groupMembers(state!.pid)).toEqual([]);
  expect(existsSync(dir)).toBe(false);
});
