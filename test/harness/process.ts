import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { openSync, readFileSync, closeSync } from 'node:fs';

/** The last lines of a service log, for error messages. */
export function logTail(logFile: string, lines = 40): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log written)';
  }
}

export class ServiceStartError extends Error {
  constructor(service: string, reason: string, logFile: string, options?: { cause?: unknown }) {
    super(`${service} did not start: ${reason}\n--- last lines of ${logFile} ---\n${logTail(logFile)}`, options);
    this.name = 'ServiceStartError';
  }
}

/**
 * Starts a long-running service with stdout and stderr appended to logFile.
 * `detached: true` (with child.unref()) lets it outlive this process.
 */
export function spawnLogged(command: string, args: string[], logFile: string, options: SpawnOptions = {}): ChildProcess {
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(command, args, { detached: false, ...options, stdio: ['ignore', fd, fd] });
    child.on('error', () => undefined); // reported through waitUntil via exitCode/log
    return child;
  } finally {
    closeSync(fd);
  }
}

/** Polls `ready` until it resolves true; fails early when the process exits. */
export async function waitUntil(
  service: string,
  child: ChildProcess,
  logFile: string,
  ready: () => Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new ServiceStartError(service, `process exited (${child.exitCode ?? child.signalCode})`, logFile);
    }
    try {
      if (await ready()) return;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new ServiceStartError(service, `not ready within ${timeoutMs / 1000}s`, logFile, { cause: lastError });
}

/** SIGTERM, then SIGKILL after a grace period; resolves once the process is gone. */
export async function stopProcess(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
