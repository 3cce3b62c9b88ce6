// One registry request's total deadline, joined with the caller's AbortSignal.
// Its signal goes to fetch, so it ends the wait for headers and the body read
// alike; the abort reason is the typed error every waiting reader receives.
import { RegistryAbortedError, RegistryTimeoutError } from './errors';

export class RequestDeadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onCallerAbort: (() => void) | undefined;

  constructor(
    readonly method: string,
    readonly url: string,
    readonly timeoutMs: number,
    private readonly caller?: AbortSignal,
  ) {
    this.timer = setTimeout(() => this.controller.abort(new RegistryTimeoutError(method, url, timeoutMs)), timeoutMs);
    if (caller?.aborted) {
      this.controller.abort(new RegistryAbortedError(method, url, caller.reason));
    } else if (caller) {
      this.onCallerAbort = () => this.controller.abort(new RegistryAbortedError(method, url, caller.reason));
      caller.addEventListener('abort', this.onCallerAbort, { once: true });
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The typed error once the deadline passed or the caller aborted; else `err` itself. */
  wrap(err: unknown): unknown {
    return this.controller.signal.aborted ? this.controller.signal.reason : err;
  }

  /** Throws the typed error when the request must stop. */
  check(): void {
    if (this.controller.signal.aborted) throw this.controller.signal.reason;
  }

  /** The request is complete: stop the timer and let go of the caller's signal. */
  clear(): void {
    clearTimeout(this.timer);
    if (this.onCallerAbort) this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** `p`, unless `signal` aborts first (then its reason); for waits shared with other callers. */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
