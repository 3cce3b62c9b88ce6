import { availableParallelism } from 'node:os';

export interface CueEngineOptions {
  /** Worker threads, each owning one warm wasm instance. */
  poolSize: number;
  /** Default per-call timeout; the worker is terminated and replaced when it fires. */
  timeoutMs: number;
  /**
   * Hard cap of one instance's wasm linear memory. Enforced inside the call:
   * the module's memory gets this maximum, so Go's allocator fails and the
   * call ends with CueMemoryLimitError.
   */
  memoryLimitBytes: number;
  /** After a call, an instance whose memory grew past this is replaced (Go never shrinks it). */
  recycleAboveBytes: number;
  /** V8 heap cap of each worker thread of the wasm runtime (request/response strings live there). */
  workerHeapMb: number;
  /**
   * Run a small module build on every worker during start(), so V8 compiles
   * the hot wasm code then rather than during the first real call.
   */
  warmup: boolean;
  /**
   * How long a tenant stays quarantined after one of its calls hit the
   * timeout or the memory cap (a clean call of the same op ends it sooner).
   * Quarantined tenants share at most max(1, floor(poolSize / 2)) workers.
   */
  quarantineMs: number;
  /**
   * Where CUE runs. 'native': helper processes built for the host from the
   * same Go sources (fast start, native speed; needs Landlock to confine
   * them). 'wasm': cue.wasm in worker threads. 'auto' (default): native when
   * the helper was built and starts, else wasm. FLOTILLA_CUE_RUNTIME sets
   * the default.
   */
  runtime: CueRuntime;
  /**
   * GOGC of the native helpers (Go's default 100 when absent). A short-lived
   * process such as the CLI trades memory for speed with a higher value; the
   * memory limit still bounds the heap.
   */
  gcPercent?: number;
  /** Directory holding cue.wasm, wasm_exec.js and cue-native; default: found from the build. */
  wasmDir?: string;
}

export type CueRuntime = 'auto' | 'native' | 'wasm';

function runtimeFromEnv(): CueRuntime {
  const v = process.env.FLOTILLA_CUE_RUNTIME;
  return v === 'native' || v === 'wasm' ? v : 'auto';
}

export function defaultCueEngineOptions(): CueEngineOptions {
  return {
    poolSize: Math.max(1, availableParallelism()),
    timeoutMs: 30_000,
    memoryLimitBytes: 1024 * 1048576,
    recycleAboveBytes: 512 * 1048576,
    workerHeapMb: 512,
    warmup: false,
    quarantineMs: 10 * 60_000,
    runtime: runtimeFromEnv(),
  };
}
