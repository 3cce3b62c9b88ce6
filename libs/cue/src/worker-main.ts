/* eslint-disable @typescript-eslint/no-require-imports */
// The body of every pool worker. It is started with `eval: true` from this
// function's source text, so the same code runs under Jest (TypeScript via
// swc) and from dist/: it must not refer to anything outside itself.
//
// Sandbox: wasm_exec.js and the Go program run in a fresh vm context whose
// only globals are listed below. Its `fs` answers ENOENT to everything
// (stdout/stderr are captured), `process` is inert, and there is no fetch,
// require or network, so CUE sees nothing but the tree in each request.

import type { WasmApi, WasmMemory, WasmModule } from './wasm-types';

export interface WorkerInit {
  type: 'init';
  module: WasmModule;
  wasmExec: string;
  env: Record<string, string>;
}
export interface WorkerCall {
  type: 'call';
  id: number;
  op: string;
  payload: unknown;
}
export type WorkerReply =
  | { type: 'ready'; startMs: number; memoryBytes: number; cueVersion: string }
  | { type: 'result'; id: number; response: string; memoryBytes: number; ms: number }
  | { type: 'fatal'; id?: number; message: string; output: string };

export function cueWorkerMain(): void {
  const { parentPort } = require('node:worker_threads') as typeof import('node:worker_threads');
  const vm = require('node:vm') as typeof import('node:vm');
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const post = (m: WorkerReply) => parentPort!.postMessage(m);

  let output = '';
  const decoder = new TextDecoder();
  const refuse = () => Object.assign(new Error('no filesystem in the CUE sandbox'), { code: 'ENOENT' });
  const fakeFs: Record<string, unknown> = {
    // Real flag values so Go attempts the open (and gets ENOENT) instead of
    // failing early on an unsupported flag.
    constants: { O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_TRUNC: 512, O_APPEND: 1024, O_EXCL: 128, O_DIRECTORY: 65536 },
    writeSync(_fd: number, buf: Uint8Array) {
      if (output.length < 65536) output += decoder.decode(buf);
      return buf.length;
    },
    write(_fd: number, buf: Uint8Array, offset: number, length: number, position: unknown, cb: (e: unknown, n?: number) => void) {
      if (offset !== 0 || length !== buf.length || position !== null) return cb(refuse());
      if (output.length < 65536) output += decoder.decode(buf);
      cb(null, buf.length);
    },
  };
  for (const m of ['chmod', 'chown', 'close', 'fchmod', 'fchown', 'fstat', 'fsync', 'ftruncate', 'lchown', 'link', 'lstat', 'mkdir', 'open', 'read', 'readdir', 'readlink', 'rename', 'rmdir', 'stat', 'symlink', 'truncate', 'unlink', 'utimes']) {
    fakeFs[m] = (...args: unknown[]) => (args[args.length - 1] as (e: unknown) => void)(refuse());
  }
  const fakeProcess = {
    pid: -1,
    ppid: -1,
    getuid: () => -1,
    getgid: () => -1,
    geteuid: () => -1,
    getegid: () => -1,
    getgroups: () => {
      throw refuse();
    },
    umask: () => {
      throw refuse();
    },
    cwd: () => '/',
    chdir: () => {
      throw refuse();
    },
  };
  const sandbox: Record<string, unknown> = {
    fs: fakeFs,
    process: fakeProcess,
    crypto: globalThis.crypto,
    performance: globalThis.performance,
    TextEncoder,
    TextDecoder,
    Date,
    WebAssembly: wasm,
    setTimeout,
    clearTimeout,
    console: { log() {}, error() {}, warn() {} },
  };

  type GoInstance = { env: Record<string, string>; argv: string[]; importObject: object; exited: boolean; run(i: unknown): Promise<void> };
  let go: GoInstance;
  let memory: WasmMemory;
  let call: (op: string, req: string) => string;

  parentPort!.on('message', async (msg: WorkerInit | WorkerCall) => {
    if (msg.type === 'init') {
      const t0 = performance.now();
      try {
        vm.createContext(sandbox);
        vm.runInContext(msg.wasmExec, sandbox, { filename: 'wasm_exec.js' });
        const Go = sandbox.Go as new () => GoInstance;
        go = new Go();
        go.env = msg.env;
        go.argv = ['cue'];
        const instance = await wasm.instantiate(msg.module, go.importObject);
        memory = instance.exports.mem as WasmMemory;
        void go.run(instance);
        call = sandbox.flotillaCue as typeof call;
        if (typeof call !== 'function') throw new Error('the Go program did not register flotillaCue');
        post({ type: 'ready', startMs: performance.now() - t0, memoryBytes: memory.buffer.byteLength, cueVersion: String(sandbox.flotillaCueVersion) });
      } catch (err) {
        post({ type: 'fatal', message: `starting the CUE engine failed: ${(err as Error).message}`, output });
      }
      return;
    }
    const t0 = performance.now();
    output = '';
    let response: string;
    if (msg.op === 'test.block') {
      // TEST_BLOCK_OP (worker-pool.ts): hold this worker until the spec releases it.
      Atomics.wait(new Int32Array(msg.payload as SharedArrayBuffer), 0, 0);
      post({ type: 'result', id: msg.id, response: '{"ok":true,"result":{}}', memoryBytes: memory.buffer.byteLength, ms: performance.now() - t0 });
      return;
    }
    try {
      response = call(msg.op, JSON.stringify(msg.payload));
    } catch (err) {
      post({ type: 'fatal', id: msg.id, message: (err as Error).message, output });
      return;
    }
    if (go.exited) {
      post({ type: 'fatal', id: msg.id, message: 'the Go runtime exited', output });
      return;
    }
    post({ type: 'result', id: msg.id, response, memoryBytes: memory.buffer.byteLength, ms: performance.now() - t0 });
  });
}
