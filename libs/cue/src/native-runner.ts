import type { Socket } from 'node:net';
import { encodeRequestFrame } from './native-frame';
import { adoptPrespawnedHelper, spawnNativeHelper } from './native-prespawn';
import type { CueEngineOptions } from './options';
import type { CueRunner, CueRunnerFactory, RunnerEvents } from './runner';

/** How long a helper may take to print its ready line before it is killed. */
const START_DEADLINE_MS = 30_000;
const MAX_OUTPUT = 16_384;

/**
 * Helper processes running cue-native, the evaluator built for the host from
 * the same Go sources as cue.wasm (see go/main_native.go for the frames).
 * Each confines itself with Landlock and has an empty environment.
 */
export class NativeRunnerFactory implements CueRunnerFactory {
  readonly memoryKind = 'process memory';

  constructor(
    private readonly options: CueEngineOptions,
    private readonly binary: string,
  ) {}

  spawn(events: RunnerEvents): CueRunner {
    const t0 = performance.now();
    const child = adoptPrespawnedHelper(this.binary, this.options) ?? spawnNativeHelper(this.binary, this.options);
    let stderr = '';
    let done = false;
    const fail = (message: string, code?: string) => {
      if (done) return;
      done = true;
      clearTimeout(startTimer);
      events.fatal({ message, output: stderr, code });
    };
    const startTimer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(`the CUE helper ${this.binary} did not start within ${START_DEADLINE_MS} ms`);
    }, START_DEADLINE_MS);
    startTimer.unref();

    let ready = false;
    let buf: Buffer = Buffer.alloc(0);
    let header: { id: number; length: number; memoryBytes: number } | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      for (;;) {
        if (!header) {
          const nl = buf.indexOf(10);
          if (nl < 0) return;
          const line = buf.subarray(0, nl).toString('utf8');
          buf = buf.subarray(nl + 1);
          if (!ready) {
            ready = true;
            clearTimeout(startTimer);
            events.ready({ startMs: performance.now() - t0, memoryBytes: 0 });
            continue;
          }
          const [id, length, memoryBytes] = line.split(' ').map(Number);
          header = { id, length, memoryBytes };
        }
        if (buf.length < header.length) return;
        const response = buf.subarray(0, header.length).toString('utf8');
        buf = buf.subarray(header.length);
        const { id, memoryBytes } = header;
        header = undefined;
        events.result({ id, response, memoryBytes });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_OUTPUT) stderr += chunk.toString('utf8');
    });
    // A write to a helper that just died fails with EPIPE; its exit reports it.
    child.stdin.on('error', () => undefined);
    child.on('error', (err: Error & { code?: string }) => fail(`the CUE helper ${this.binary} failed: ${err.message}`, err.code));
    // 'close' rather than 'exit': stderr is complete by then.
    child.on('close', (code, signal) => fail(`the CUE helper exited with ${signal ?? `code ${code}`}`));

    // Stdio pipes are sockets; unreferenced, an idle helper does not keep Node alive.
    const streams = [child.stdin, child.stdout, child.stderr] as unknown as Socket[];
    return {
      call(id, op, payload) {
        if (op === 'test.block') {
          // TEST_BLOCK_OP: the helper holds until it reads one more byte,
          // written when the spec sets the shared cell.
          child.stdin.write(`${id} ${op} 2\n{}`);
          const cell = new Int32Array(payload as SharedArrayBuffer);
          void waitAsync(cell).then(() => !done && child.stdin.write('x'));
          return;
        }
        const frame = encodeRequestFrame(id, op, payload);
        child.stdin.cork();
        child.stdin.write(frame.header);
        child.stdin.write(frame.json);
        for (const part of frame.blob) child.stdin.write(part);
        child.stdin.uncork();
      },
      ref() {
        child.ref();
        for (const s of streams) s.ref();
      },
      unref() {
        child.unref();
        for (const s of streams) s.unref();
      },
      terminate() {
        done = true;
        clearTimeout(startTimer);
        if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
        return new Promise<void>((resolve) => {
          // Referenced again so the process lives until the helper is gone.
          child.ref();
          for (const s of streams) s.ref();
          child.once('close', () => resolve());
          child.kill('SIGKILL');
        });
      },
    };
  }
}

type WaitAsync = (cell: Int32Array, index: number, value: number) => { async: boolean; value: Promise<string> | string };

function waitAsync(cell: Int32Array): Promise<unknown> {
  const res = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(cell, 0, 0);
  return res.async ? (res.value as Promise<string>) : Promise.resolve(res.value);
}
