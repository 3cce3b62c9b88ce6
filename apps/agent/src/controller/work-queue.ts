// A controller work queue with client-go's semantics: a key waits at most
// once; a key being processed is never handed to a second worker, and a
// change meanwhile re-queues it once done; delayed adds keep the earliest
// time; failures back off per key. The clock is injectable so specs drive
// delayed keys by hand.

export interface WorkQueueClock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const realClock: WorkQueueClock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Hooks for metrics (workqueue_* of controller-runtime). */
export interface WorkQueueObserver {
  depth(n: number): void;
  added(): void;
  retried(): void;
  /** time from add to get */
  latency(ms: number): void;
  /** time from get to done */
  workDuration(ms: number): void;
}

export interface WorkQueueOptions {
  clock: WorkQueueClock;
  observer?: WorkQueueObserver;
  /** per-key failure backoff: baseMs × 2^failures, at most maxMs */
  rateLimit: { baseMs: number; maxMs: number };
}

export class WorkQueue {
  private readonly options: WorkQueueOptions;
  private readonly queue: string[] = [];
  /** keys waiting (in `queue`) or to be re-queued after processing, with their add time */
  private readonly dirty = new Map<string, number>();
  private readonly processing = new Map<string, number>();
  private readonly delayed = new Map<string, { at: number; timer: unknown }>();
  private readonly failureCounts = new Map<string, number>();
  private waiters: Array<(key: string | undefined) => void> = [];
  private shuttingDown = false;

  constructor(options: Partial<WorkQueueOptions> = {}) {
    this.options = { clock: realClock, rateLimit: { baseMs: 5, maxMs: 1_000_000 }, ...options };
  }

  add(key: string): void {
    if (this.shuttingDown) return;
    this.cancelDelayed(key);
    if (this.dirty.has(key)) return;
    this.dirty.set(key, this.options.clock.now());
    this.options.observer?.added();
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** Adds `key` after `ms`; an earlier pending time wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = this.options.clock.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) this.options.clock.clearTimer(pending.timer);
    const timer = this.options.clock.setTimer(() => {
      if (this.delayed.get(key)?.timer !== timer) return;
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { at, timer });
  }

  /** Adds `key` after its own backoff, which grows with each call until `forget`. */
  addRateLimited(key: string): void {
    const failures = this.failureCounts.get(key) ?? 0;
    this.failureCounts.set(key, failures + 1);
    this.options.observer?.retried();
    const { baseMs, maxMs } = this.options.rateLimit;
    this.addAfter(key, Math.min(maxMs, baseMs * 2 ** Math.min(failures, 40)));
  }

  forget(key: string): void {
    this.failureCounts.delete(key);
  }

  failures(key: string): number {
    return this.failureCounts.get(key) ?? 0;
  }

  /** The next due key, marked as processing; undefined once shut down or aborted. */
  get(signal?: AbortSignal): Promise<string | undefined> {
    if (this.shuttingDown || signal?.aborted) return Promise.resolve(undefined);
    const key = this.take();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => {
      const waiter = (k: string | undefined) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(k);
      };
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Ends the processing of `key`; re-queues it if it changed meanwhile. */
  done(key: string): void {
    const started = this.processing.get(key);
    if (started === undefined) return;
    this.processing.delete(key);
    this.options.observer?.workDuration(this.options.clock.now() - started);
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key);
  }

  /** Wakes every waiting worker with undefined; later adds are ignored. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) this.options.clock.clearTimer(timer);
    this.delayed.clear();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(undefined);
  }

  get isShutDown(): boolean {
    return this.shuttingDown;
  }

  /** keys waiting and due */
  len(): number {
    return this.queue.length;
  }

  delayedLen(): number {
    return this.delayed.size;
  }

  private push(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.start(key);
      waiter(key);
      return;
    }
    this.queue.push(key);
    this.options.observer?.depth(this.queue.length);
  }

  private take(): string | undefined {
    const key = this.queue.shift();
    if (key === undefined) return undefined;
    this.options.observer?.depth(this.queue.length);
    this.start(key);
    return key;
  }

  private start(key: string): void {
    const addedAt = this.dirty.get(key) ?? this.options.clock.now();
    this.dirty.delete(key);
    const now = this.options.clock.now();
    this.processing.set(key, now);
    this.options.observer?.latency(now - addedAt);
  }

  private cancelDelayed(key: string): void {
    const pending = this.delayed.get(key);
    if (!pending) return;
    this.options.clock.clearTimer(pending.timer);
    this.delayed.delete(key);
  }
}
