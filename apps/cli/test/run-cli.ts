import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { testDir } from '../../../test/harness/temp-dirs';

const ROOT = resolve(__dirname, '../../..');

/** The file the package.json `bin` names (the bundle `npm run build` makes): what users run. */
export const CLI_MAIN = resolve(ROOT, (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: { flotilla: string } }).bin.flotilla);

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A user of the CLI: a home of its own, so contexts never touch the developer's. */
export class CliUser {
  readonly home = testDir('flotilla-cli-home-');
  readonly configDir = join(this.home, 'xdg');

  constructor(private readonly extraEnv: Record<string, string> = {}) {
    if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: run \`npm run build\` first`);
  }

  env(more: Record<string, string> = {}): Record<string, string> {
    return { PATH: process.env.PATH ?? '', HOME: this.home, XDG_CONFIG_HOME: this.configDir, ...this.extraEnv, ...more };
  }

  spawn(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): ChildProcess {
    return spawn(process.execPath, [CLI_MAIN, ...args], { env: this.env(options.env), cwd: options.cwd ?? this.home, stdio: ['pipe', 'pipe', 'pipe'] });
  }

  /** Runs one command to its end (60 s at most). */
  run(args: string[], options: { env?: Record<string, string>; input?: string; cwd?: string } = {}): Promise<CliResult> {
    const child = this.spawn(args, options);
    child.stdin!.end(options.input ?? '');
    return collect(child, `flotilla ${args.join(' ')}`, 60_000);
  }

  /** Runs a command that must succeed; the error shows its output when it does not. */
  async ok(args: string[], options: { env?: Record<string, string>; input?: string; cwd?: string } = {}): Promise<string> {
    const r = await this.run(args, options);
    if (r.code !== 0) throw new Error(`flotilla ${args.join(' ')} exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    return r.stdout;
  }
}

export function collect(child: ChildProcess, what: string, timeoutMs: number): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolveRun, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not end within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

/** Nothing that looks like a JavaScript stack trace. */
export function expectNoStack(text: string): void {
  expect(text).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
  expect(text).not.toMatch(/node:internal|TypeError|ReferenceError/);
}

/** Resolves with the output so far once `pattern` shows up on stdout (a positive signal, not a sleep). */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  let out = '';
  let err = '';
  return new Promise((resolveWait, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${pattern} on stdout\nstdout:\n${out.slice(-4000)}\nstderr:\n${err}`)), timeoutMs);
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (pattern.test(out)) {
        clearTimeout(timer);
        resolveWait(out);
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (!pattern.test(out)) reject(new Error(`exited ${code} before ${pattern} showed up\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
}
