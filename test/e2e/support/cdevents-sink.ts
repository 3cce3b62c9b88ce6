import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '../../harness/ports';

const SERVER = resolve(__dirname, 'cdevents-sink-server.js');

/** One request the sink received. */
export interface SinkRequest {
  method: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A real HTTP sink in a child process on a fixed port, so it can be down
 * (killed) and come back on the same URL. Every request of every life is kept.
 */
export class SinkProcess {
  readonly received: SinkRequest[] = [];
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async create(): Promise<SinkProcess> {
    return new SinkProcess(await freePort());
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/events`;
  }

  /** Starts it; resolves once it listens. */
  async start(): Promise<void> {
    const child = spawn(process.execPath, [SERVER, String(this.port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.child = child;
    let partial = '';
    await new Promise<void>((resolveUp, reject) => {
      child.once('exit', (code) => reject(new Error(`sink exited (${code}) before listening`)));
      child.stdout!.on('data', (d: Buffer) => {
        const lines = (partial + d.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          if (line.startsWith('listening ')) resolveUp();
          else if (line) this.received.push(JSON.parse(line) as SinkRequest);
        }
      });
    });
  }

  /** SIGKILL: the port refuses connections until the next start. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    this.child = undefined;
  }

  /** The CDEvents received (binary mode: the body is the CDEvent), in arrival order. */
  events(): Array<{ headers: Record<string, string>; event: { context: { id: string; type: string }; subject: { id: string; content: Record<string, unknown> }; customData: { flotilla: Record<string, unknown> } } }> {
    return this.received.map((r) => ({ headers: r.headers, event: JSON.parse(r.body) }));
  }
}
