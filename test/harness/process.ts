import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';

/** A server process started by the harness, logging to a file. */
export interface ServiceProcess {
  name: string;
  logFile: string;
  child: ChildProcess;
  /** Resolves with the exit code (or signal name) once the process is gone. */
  exited: Promise<number | string>;
  /** True while the process has not exited. */
  running(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs: number): Promise<void>;
}

/** Starts `bin` with stdout and stderr appended to `logFile`. */
export function startProcess(name: string, bin: string, args: string[], logFile: string): ServiceProcess {
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(bin, args, { stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd); // the child holds its own copy
  }
  let done = false;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve(code ?? signal ?? 'unknown');
    });
    // spawn failures (ENOENT, EACCES) arrive as 'error' without 'exit'
    child.once('error', (err) => {
      done = true;
      resolve(`spawn error: ${err.message}`);
    });
  });
  return {
    name,
    logFile,
    child,
    exited,
    running: () => !done,
    async stop(graceMs: number) {
      if (done) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The last `lines` lines of a log file, for error messages. */
export function logTail(logFile: string, lines = 40): string {
  if (!existsSync(logFile)) return '(no log file)';
  return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}
