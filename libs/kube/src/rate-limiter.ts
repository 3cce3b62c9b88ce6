/** Token bucket: `qps` tokens per second, at most `burst` saved up. One per connection. */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly now: () => number = Date.now,
    /** waits `ms`; specs pass one that moves their clock instead */
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    if (!(qps > 0) || !(burst >= 1)) throw new RangeError(`rate limiter needs qps > 0 and burst >= 1 (got qps ${qps}, burst ${burst})`);
    this.tokens = burst;
    this.last = now();
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = t;
  }

  /** Resolves when a token is available; callers are served in arrival order. */
  take(): Promise<void> {
    const turn = this.queue.then(async () => {
      this.refill();
      if (this.tokens < 1) {
        await this.sleep(Math.ceil(((1 - this.tokens) / this.qps) * 1000));
        this.refill();
      }
      this.tokens -= 1;
    });
    this.queue = turn;
    return turn;
  }
}
