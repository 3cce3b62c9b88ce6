import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { reportOf } from '../test/simulated-agent';

const ROOT = resolve(__dirname, '../../..');

/** The simulated agents' process, and the JSON lines it prints (`connected`, and `acked` per timed digest). */
export interface Simulator {
  process: ChildProcess;
  /** the next line of this event, waited for */
  next(event: string): Promise<Record<string, unknown>>;
  /** starts the clock of a digest: the agents say when every one of them holds it */
  timeDigest(digest: string, at: number): void;
  /** closes every agent's connection and waits for the process to exit */
  stop(): Promise<void>;
}

/** Starts the simulated agents dialing `address`; made once per run by prepareSimulator. */
export type SimulatorLauncher = (address: string) => Simulator;

/**
 * The Go program (BENCH_SIM=go, the default; built, and its report template
 * written, here once) or the Node one (BENCH_SIM=node), with the agents of
 * `identityFile`.
 */
export function prepareSimulator(kind: string, work: string, identityFile: string, caFile: string): SimulatorLauncher {
  const command = simulatorCommand(kind, work);
  return (address) => watch(spawn(command.file, [...command.args, address, identityFile, caFile, ...command.trailing], { stdio: ['pipe', 'pipe', 'inherit'] }));
}

function watch(child: ChildProcess): Simulator {
  const events: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stdout! }).on('line', (l) => {
    events.push(JSON.parse(l) as Record<string, unknown>);
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  return {
    process: child,
    next: (event) =>
      new Promise((done, fail) => {
        const look = () => {
          const i = events.findIndex((e) => e.event === event);
          if (i >= 0) done(events.splice(i, 1)[0]);
          else waiters.push(look);
        };
        look();
        void exited.then(() => fail(new Error(`the simulator exited before it said ${event}`)));
      }),
    timeDigest: (digest, at) => void child.stdin!.write(`${JSON.stringify({ digest, at })}\n`),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.stdin!.end();
      await exited;
    },
  };
}

/** The program to run, the arguments before the common ones (address, identities, CA) and those after. */
function simulatorCommand(kind: string, work: string): { file: string; args: string[]; trailing: string[] } {
  if (kind === 'node') {
    // BENCH_SIM_PROFILE=<dir>: the simulator's CPU profile, written when it exits
    const simProfile = process.env.BENCH_SIM_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SIM_PROFILE}`] : [];
    return { file: process.execPath, args: [...simProfile, join(ROOT, 'scripts/run-ts.mjs'), join(__dirname, 'agents-sim.ts')], trailing: [] };
  }
  if (kind !== 'go') throw new Error(`BENCH_SIM=${kind}: go or node`);
  const build = spawnSync(process.execPath, [join(__dirname, 'agents-sim-go/build.mjs')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (build.status !== 0) throw new Error(`the Go simulator did not build (exit ${build.status})`);
  const templateFile = join(work, 'report-template.json');
  writeFileSync(templateFile, reportTemplate());
  return { file: build.stdout.trim().split('\n').pop()!, args: [], trailing: [templateFile] };
}

/**
 * The engine's reports of a successful apply and a successful deletion, one per line, for an assignment of
 * markers the Go simulator fills in (agents-sim-go/report.go).
 */
function reportTemplate(): string {
  const marked = {
    targetId: '', generation: 0, projectName: '__PROJECT_NAME__', projectNamespace: '__PROJECT_NAMESPACE__', repository: '__SOURCE__', tag: '__TAG__', path: '',
    digest: '__DIGEST__', serviceAccountName: '', annotations: {}, clusterName: '__CLUSTER_NAME__', clusterGroup: '__CLUSTER_GROUP__', intervalSeconds: 600, suspend: false, delete: false, registryCredentials: undefined,
    tenantPolicy: undefined,
  };
  const line = (deleting: boolean) => {
    const report = reportOf({ ...marked, delete: deleting }, true);
    return JSON.stringify(report).replaceAll(report.startedAt, '__NOW__');
  };
  return `${line(false)}\n${line(true)}\n`;
}
