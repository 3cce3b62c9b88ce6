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
 * aborts. Rejects with DeadlineExceeded at the deadline (at most `graceMs`
 * later if the work is still unwinding from the abort), or with the
 * parent's reason when the parent aborts first.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  parent: AbortSignal | undefined,
  work: (signal: AbortSignal, deadline: number) => Promise<T>,
  graceMs = 0,
): Promise<T> {
  const controller = new AbortController();
  const deadline = Date.now() + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  let onParentAbort: (() => void) | undefined;
  let running: Promise<T> | undefined;
  let timedOut = false;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new DeadlineExceeded(timeoutMs);
      timedOut = true;
      controller.abort(err);
      if (graceMs <= 0 || !running) return reject(err);
      // Let work that heeds the signal record why it stopped (e.g. a wait's report), but not for long.
      const settled = running.then(() => undefined, () => undefined);
      void Promise.race([settled, new Promise((r) => (timer = setTimeout(r, graceMs)))]).then(() => reject(err));
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
    running = work(controller.signal, deadline);
    // Once the deadline fired, the outcome is DeadlineExceeded whatever the work does in its grace.
    const never = new Promise<never>(() => undefined);
    const outcome = running.then(
      (v) => (timedOut ? never : v),
      (e: unknown) => (timedOut ? never : Promise.reject(e)),
    );
    return await Promise.race([outcome, expired]);
  } finally {
    clearTimeout(timer);
    if (parent && onParentAbort) parent.removeEventListener('abort', onParentAbort);
  }
}
