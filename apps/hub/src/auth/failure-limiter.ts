/**
 * Counts failed authentications per source address in fixed windows, so one
 * source cannot guess tokens at line rate. Pure and clock-free: callers pass
 * the time. Bounded: past `maxSources` the source seen least recently is
 * forgotten (a Map keeps insertion order; a touch moves a key to the end).
 */
export interface FailureLimiterOptions {
  /** failures allowed per window; 0 turns the limiter off */
  limit: number;
  windowMs: number;
  /** sources tracked at once */
  maxSources: number;
}

export function defaultFailureLimiterOptions(): FailureLimiterOptions {
  return { limit: 10, windowMs: 60_000, maxSources: 10_000 };
}

interface Window {
  startMs: number;
  failures: number;
}

export class FailureLimiter {
  private readonly sources = new Map<string, Window>();

  constructor(private readonly options: FailureLimiterOptions) {}

  get size(): number {
    return this.sources.size;
  }

  /** 0 when `source` may try; otherwise how many ms until it may. */
  retryAfterMs(source: string, nowMs: number): number {
    if (this.options.limit === 0) return 0;
    const w = this.current(source, nowMs);
    return w && w.failures >= this.options.limit ? w.startMs + this.options.windowMs - nowMs : 0;
  }

  /** Records one failed attempt from `source`. */
  fail(source: string, nowMs: number): void {
    if (this.options.limit === 0) return;
    const w = this.current(source, nowMs) ?? { startMs: nowMs, failures: 0 };
    w.failures++;
    this.sources.delete(source);
    this.sources.set(source, w);
    if (this.sources.size > this.options.maxSources) this.sources.delete(this.sources.keys().next().value!);
  }

  private current(source: string, nowMs: number): Window | undefined {
    const w = this.sources.get(source);
    if (w && nowMs - w.startMs >= this.options.windowMs) {
      this.sources.delete(source);
      return undefined;
    }
    return w;
  }
}
