import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { DemoError } from './demo-errors';

/** A compiled Flotilla program (hub or agent) run by the demo's supervisor, its output in a log file. */
export interface NodeService {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** the http:// URL it printed as "listening on …" */
  url: string;
  stop(graceMs?: number): Promise<void>;
}

function lastLines(file: string, n = 30): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n');
  } catch {
    return '(no output)';
  }
}

/**
 * Starts `node script args` with only `env` (nothing inherited but PATH and
 * HOME) and resolves once it printed "listening on http://…", within
 * `timeoutMs`; fails with the last lines of its log when it exits first.
 */
export async function startNodeService(name: string, script: string, args: string[], env: Record<string, string>, logFile: string, timeoutMs: number): Promise<NodeService> {
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [script, ...args], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/', ...env }, stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  child.on('error', () => undefined); // seen as an exit below
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (graceMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new DemoError(`${name} exited (${child.exitCode ?? child.signalCode}) before it listened; last lines of ${logFile}:\n${lastLines(logFile)}`);
    }
    const url = /listening on (http:\/\/[^\s"]+)/.exec(lastLines(logFile, 200))?.[1];
    if (url) return { name, child, logFile, url, stop };
    await sleep(100);
  }
  await stop(2_000);
  throw new DemoError(`${name} did not listen within ${timeoutMs / 1000}s; last lines of ${logFile}:\n${lastLines(logFile)}`);
}
