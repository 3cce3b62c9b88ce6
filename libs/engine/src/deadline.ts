// A deadline for one piece of work: its signal aborts every request made
// under it, and the work's promise loses the race even if it ignores the signal.

export class DeadlineExceeded extends Error {
  constructor(readonly timeoutMs: number) {
    super(`deadline of ${timeoutMs} ms exceeded`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * Runs `work` with a signal that aborts after `timeoutMs` or when `parent`
 * aborts. Rejects with DeadlineExceeded at the deadline, or with the
 * parent's reason when the parent aborts first.
 */
export async function withDeadline<T>(timeoutMs: number, parent: AbortSignal | undefined, work: (signal: AbortSignal, deadline: number) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const deadline = Date.now() + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  let onParentAbort: (() => void) | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new DeadlineExceeded(timeoutMs);
      controller.abort(err);
      reject(err);
    }, timeoutMs);
    if (parent) {
      onParentAbort = () => {
        controller.abort(parent.reason);
        reject(parent.reason instanceof Error ? parent.reason : new Error(String(parent.reason ?? 'aborted')));
      };
      if (parent.aborted) onParentAbort();
      else parent.addEventListener('abort', onParentAbort, { once: true });
    }
  });
  try {
    return await Promise.race([work(controller.signal, deadline), expired]);
  } finally {
    clearTimeout(timer);
    if (parent && onParentAbort) parent.removeEventListener('abort', onParentAbort);
  }
}
