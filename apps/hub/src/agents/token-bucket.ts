// A token bucket: `burst` tokens at most, refilled at `perSecond`; each
// message takes one. Times are passed in (milliseconds from the Clock), so
// the bucket itself holds no clock and tests drive it by hand.

export interface RateLimit {
  perSecond: number;
  burst: number;
}

export class TokenBucket {
  private tokens: number;

  constructor(
    private readonly limit: RateLimit,
    private last: number,
  ) {
    this.tokens = limit.burst;
  }

  /** Takes a token at time `now` (ms); false when none is left. */
  take(now: number): boolean {
    if (now > this.last) {
      this.tokens = Math.min(this.limit.burst, this.tokens + ((now - this.last) / 1000) * this.limit.perSecond);
      this.last = now;
    }
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
