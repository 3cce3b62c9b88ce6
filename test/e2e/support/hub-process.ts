import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The compiled hub, as `npm start` runs it (built by `npm run build`, which `npm test` does first). */
export const HUB_MAIN = resolve(__dirname, '../../../dist/apps/hub/src/main.js');

const TAIL_LINES = 400;

/** One hub started as a child process; its output is kept in memory (tail) and in a log file. */
export class HubProcess {
  readonly url: Promise<string>;
  readonly exited: Promise<number | string | null>;
  readonly logFile: string;
  readonly dataDir: string;
  private readonly lines: string[] = [];
  private readonly log: WriteStream;
  private readonly child: ChildProcess;
  private exitedWith: number | string | null | undefined;

  constructor(
    readonly id: string,
    env: Record<string, string>,
    /** flags for node itself before the hub's script (a benchmark's profiler) */
    nodeFlags: readonly string[] = [],
  ) {
    if (!existsSync(HUB_MAIN)) throw new Error(`${HUB_MAIN} is missing: run \`npm run build\` first (npm test does)`);
    const dataDir = mkdtempSync(join(tmpdir(), `flotilla-e2e-${id}-`));
    this.dataDir = dataDir;
    this.logFile = join(dataDir, 'hub.log');
    this.log = createWriteStream(this.logFile);
    // Only what the hub needs: no inherited FLOTILLA_* or DATABASE_URL from the developer's shell.
    this.child = spawn(process.execPath, [...nodeFlags, HUB_MAIN], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dataDir, PORT: '0', FLOTILLA_AGENT_PORT: '0', HOST: '127.0.0.1', FLOTILLA_DATA_DIR: dataDir, FLOTILLA_HUB_ID: id, FLOTILLA_EGRESS_ALLOW_LOOPBACK: 'on', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let partial = '';
    const onData = (d: Buffer) => {
      this.log.write(d);
      const parts = (partial + d.toString()).split('\n');
      partial = parts.pop() ?? '';
      this.lines.push(...parts);
      if (this.lines.length > TAIL_LINES * 2) this.lines.splice(0, this.lines.length - TAIL_LINES);
    };
    this.child.stdout!.on('data', onData);
    this.child.stderr!.on('data', onData);
    this.exited = new Promise((resolveExit) =>
      this.child.on('exit', (code, signal) => {
        this.exitedWith = code ?? signal;
        this.log.end();
        resolveExit(this.exitedWith);
      }),
    );
    this.url = new Promise((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`hub ${id} did not print its URL within 30 s\n${this.tail(40)}`)), 30_000);
      const look = () => {
        const url = this.lines.map((l) => /listening on (http:\/\/\S+)/.exec(l)?.[1]).find(Boolean);
        if (url) {
          clearTimeout(timer);
          resolveUrl(url);
        } else if (this.exitedWith !== undefined) {
          clearTimeout(timer);
          reject(new Error(`hub ${id} exited (${this.exitedWith}) before listening\n${this.tail(40)}`));
        } else setTimeout(look, 25);
      };
      look();
    });
    this.url.catch(() => undefined); // awaited by callers; no unhandled rejection meanwhile
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitedWith === undefined;
  }

  /** The last `n` lines the hub wrote (JSON log lines and announcements), without the access log of successful requests. */
  tail(n = 60): string {
    return this.lines.filter((l) => !isQuietRequest(l)).slice(-n).join('\n');
  }

  /** SIGKILL: no shutdown hooks, leases stay held until they expire. */
  async kill(): Promise<void> {
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM (graceful), then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** A request log line of a successful call: the suites poll a lot, and these would bury what went wrong. */
function isQuietRequest(line: string): boolean {
  if (!line.includes('"msg":"request"')) return false;
  const status = /"status":(\d+)/.exec(line)?.[1];
  return status !== undefined && Number(status) < 400;
}
