// Exit codes scripts can rely on: 0 ok, 1 failure, 2 usage. Every error the
// CLI prints is one of these, so main never shows a stack trace.

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A failure with a message for people; `hint` says what to do next. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    readonly exitCode: number = EXIT_FAILURE,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** Wrong flags or arguments: exit code 2. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, hint, EXIT_USAGE);
    this.name = 'UsageError';
  }
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Not an error: a command's outcome as an exit code other than 0, with its output already printed (`diff --exit-code`). */
export class ExitStatus extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
    this.name = 'ExitStatus';
  }
}
