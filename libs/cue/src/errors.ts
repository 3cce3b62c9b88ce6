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
