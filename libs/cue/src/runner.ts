// One evaluator instance of the pool: a worker thread with a Go/wasm
// runtime, or a native helper process. The pool owns scheduling, timeouts
// and replacement; a runner only starts, runs one call at a time, and dies.

export interface RunnerEvents {
  /** The instance is up and serves calls. */
  ready(info: { startMs: number; memoryBytes: number }): void;
  /** The answer to call `id`; `memoryBytes` is the instance's memory after it. */
  result(reply: { id: number; response: string; memoryBytes: number }): void;
  /** The instance is gone (crash, exit, failed start); `output` is its last words. */
  fatal(failure: { message: string; output: string; code?: string }): void;
}

export interface CueRunner {
  call(id: number, op: string, payload: unknown): void;
  /** Whether an idle instance keeps the process alive (busy ones do). */
  ref(): void;
  unref(): void;
  terminate(): Promise<void>;
}

export interface CueRunnerFactory {
  /** What the memory cap measures, for CueMemoryLimitError ("wasm memory"). */
  readonly memoryKind: string;
  spawn(events: RunnerEvents): CueRunner;
}
