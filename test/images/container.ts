// One container run by podman in the foreground, for the image suites: its
// output collected, its "listening on" line awaited, stopped with SIGTERM
// through podman and removed. Only what ships runs inside: the image's own
// entry point with flags and environment, nothing mounted from the tree.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What test/images/build.mjs wrote: the image names, their sizes, and the flags podman needs here. */
export interface BuiltImages {
  runFlags: string[];
  hub: BuiltImage;
  agent: BuiltImage;
  base: { name: string; size: number };
}
export interface BuiltImage {
  name: string;
  size: number;
  dirs: Record<string, number>;
  topLevelPackages: number;
}

export const IMAGES_FILE = join(__dirname, '.images.json');

export function builtImages(): BuiltImages {
  if (!existsSync(IMAGES_FILE)) throw new Error(`${IMAGES_FILE} is missing: run \`node test/images/build.mjs\``);
  return JSON.parse(readFileSync(IMAGES_FILE, 'utf8')) as BuiltImages;
}

export class ContainerExitedError extends Error {}

export interface ContainerOptions {
  image: string;
  /** flags for `podman run` before the image (mounts, user, environment) */
  podman: string[];
  /** arguments after the image: the entry point's flags */
  args?: string[];
}

export class Container {
  readonly name = `flotilla-test-${randomBytes(4).toString('hex')}`;
  readonly url: Promise<string>;
  readonly exited: Promise<number | null>;
  private out = '';
  private readonly child: ChildProcess;

  constructor(opts: ContainerOptions) {
    this.child = spawn('podman', ['run', '--rm', '--name', this.name, ...builtImages().runFlags, ...opts.podman, opts.image, ...(opts.args ?? [])], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const onData = (d: Buffer) => (this.out += d.toString());
    this.child.stdout!.on('data', onData);
    this.child.stderr!.on('data', onData);
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
    this.url = new Promise((resolve, reject) => {
      const look = () => {
        const m = /listening on (http:\/\/[^\s"]+)/.exec(this.out);
        if (m) {
          this.child.stdout!.off('data', look);
          resolve(m[1]);
        }
      };
      this.child.stdout!.on('data', look);
      void this.exited.then((code) => reject(new ContainerExitedError(`${opts.image} exited (${code}) before it listened:\n${this.tail()}`)));
    });
    this.url.catch(() => undefined); // awaited by callers; no unhandled rejection meanwhile
  }

  /** The last lines the container wrote. */
  tail(lines = 60): string {
    return this.out.split('\n').slice(-lines).join('\n');
  }

  /** podman inspect of the running container, one Go template. */
  async inspect(format: string): Promise<string> {
    return (await run('podman', ['inspect', '--format', format, this.name], { timeout: 30_000 })).stdout.trim();
  }

  /** SIGTERM through podman (then SIGKILL after `graceSeconds`), and the exit code. */
  async stop(graceSeconds = 20): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      await run('podman', ['stop', '--time', String(graceSeconds), this.name], { timeout: (graceSeconds + 30) * 1000 }).catch(() => undefined);
    }
    return this.exited;
  }
}
