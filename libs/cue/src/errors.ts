import type { CueDiagnostic } from './types';

/** Base class of every error libs/cue throws. */
export class CueError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** CUE rejected the input: every error of the evaluation, each with file:line. */
export class CueEvaluationError extends CueError {
  readonly diagnostics: CueDiagnostic[];
  constructor(operation: string, diagnostics: CueDiagnostic[], options?: { cause?: unknown }) {
    super(`${operation}: ${diagnostics.map(formatDiagnostic).join('; ')}`, options);
    this.diagnostics = diagnostics;
  }
}

/** The request itself was malformed (bad path, missing entry, unknown kind). */
export class CueInputError extends CueError {
  readonly diagnostics: CueDiagnostic[];
  constructor(operation: string, diagnostics: CueDiagnostic[], options?: { cause?: unknown }) {
    super(`${operation}: ${diagnostics.map((d) => d.message).join('; ')}`, options);
    this.diagnostics = diagnostics;
  }
}

/** The call ran longer than its timeout; its worker was terminated and replaced. */
export class CueTimeoutError extends CueError {
  constructor(
    readonly operation: string,
    readonly timeoutMs: number,
  ) {
    super(`${operation}: CUE evaluation exceeded its timeout of ${timeoutMs} ms and was stopped`);
  }
}

/** The call exceeded the memory cap; its worker was terminated and replaced. */
export class CueMemoryLimitError extends CueError {
  constructor(
    readonly operation: string,
    readonly limitBytes: number,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${operation}: CUE evaluation exceeded the memory cap of ${Math.round(limitBytes / 1048576)} MiB (${detail})`, options);
  }
}

/** The engine itself failed: wasm not built, worker crashed, engine closed. */
export class CueEngineError extends CueError {}

export function formatDiagnostic(d: CueDiagnostic): string {
  return d.file ? `${d.file}:${d.line}:${d.column}: ${d.message}` : d.message;
}

/** The container's memory limit leaves too little beside the reserve for the CUE pool asked for. */
export class CueMemoryBudgetError extends CueError {
  constructor(
    readonly limitBytes: number,
    readonly reserveBytes: number,
    readonly poolSize: number,
    readonly minWorkerBytes: number,
  ) {
    const mib = (n: number) => `${Math.round(n / 1048576)} MiB`;
    super(
      `the memory limit of ${mib(limitBytes)} leaves ${mib(Math.max(0, limitBytes - reserveBytes))} for CUE after the reserve of ${mib(reserveBytes)}; ` +
        `${poolSize} worker(s) need at least ${mib(poolSize * minWorkerBytes)}: raise the container's memory limit, lower the reserve, or set a smaller pool size`,
    );
  }
}
