// The compiled agent (`dist/apps/agent/src/main.js`, what ships) as a child
// process, for tests: started with flags, its JSON log lines collected, and
// waited on for what it prints rather than for a fixed time.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testDir } from '../../../test/harness/temp-dirs';

export const AGENT_MAIN = join(__dirname, '../../../dist/apps/agent/src/main.js');

/** The release the compiled agent should report: the repository's package.json says it. */
export const EXPECTED_AGENT_VERSION = (JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { version: string }).version;

export interface AgentProcess {
  child: ChildProcess;
  output(): string;
  /** parsed JSON log lines so far */
  logs(): Array<Record<string, unknown>>;
  exited: Promise<number | null>;
  /** the probe server's base URL, once printed */
  url: Promise<string>;
  /** SIGTERM, then wait for the exit */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, nothing released */
  kill(): Promise<number | null>;
}

/** Writes `kubeconfig` to a fresh file and returns its path. */
export function kubeconfigFile(kubeconfig: string): string {
  const dir = testDir('flotilla-agent-kc-');
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, kubeconfig, { mode: 0o600 });
  return path;
}

/** The flags every test agent takes: its kubeconfig, a free probe port, a fresh cache, one namespace watched. */
export function testAgentArgs(opts: { kubeconfig: string; identity: string; namespace: string }, extra: string[] = []): string[] {
  return [
    `--kubeconfig=${opts.kubeconfig}`,
    '--http-address=127.0.0.1:0',
    `--cache-dir=${testDir('flotilla-agent-cache-')}`,
    `--identity=${opts.identity}`,
    `--namespace=${opts.namespace}`,
    ...extra,
  ];
}

export function startAgentProcess(args: string[], env: Record<string, string> = {}): AgentProcess {
  if (!existsSync(AGENT_MAIN)) throw new Error(`${AGENT_MAIN} is missing: run \`npm run build:test\` first (npm test does)`);
  let out = '';
  const child = spawn(process.execPath, [AGENT_MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  const url = new Promise<string>((resolve, reject) => {
    const check = () => {
      const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
      if (m) {
        child.stdout!.off('data', check);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => reject(new Error(`agent exited (${code}) before it listened:\n${out}`)));
  });
  url.catch(() => undefined);
  const logs = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
  return {
    child,
    output: () => out,
    logs,
    exited,
    url,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return exited;
    },
  };
}
