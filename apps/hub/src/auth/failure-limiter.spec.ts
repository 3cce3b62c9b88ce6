import { FailureLimiter } from './failure-limiter';

describe('FailureLimiter', () => {
  it('lets a source fail `limit` times per window, then says how long to wait', () => {
    const limiter = new FailureLimiter({ limit: 3, windowMs: 60_000, maxSources: 10 });
    for (let i = 0; i < 3; i++) {
      expect(limiter.retryAfterMs('10.0.0.1', 1000)).toBe(0);
      limiter.fail('10.0.0.1', 1000 + i);
    }
    expect(limiter.retryAfterMs('10.0.0.1', 11_000)).toBe(50_000);
    // another source is not held back
    expect(limiter.retryAfterMs('10.0.0.2', 11_000)).toBe(0);
    // a new window starts once the old one is over
    expect(limiter.retryAfterMs('10.0.0.1', 61_000)).toBe(0);
    limiter.fail('10.0.0.1', 61_000);
    expect(limiter.retryAfterMs('10.0.0.1', 61_000)).toBe(0);
  });

  it('forgets the source seen least recently past maxSources', () => {
    const limiter = new FailureLimiter({ limit: 1, windowMs: 60_000, maxSources: 2 });
    limiter.fail('a', 0);
    limiter.fail('b', 0);
    limiter.fail('a', 1); // a is now the most recent
    limiter.fail('c', 2);
    expect(limiter.size).toBe(2);
    expect(limiter.retryAfterMs('b', 3)).toBe(0);
    expect(limiter.retryAfterMs('a', 3)).toBeGreaterThan(0);
    expect(limiter.retryAfterMs('c', 3)).toBeGreaterThan(0);
  });

  it('does nothing with limit 0', () => {
    const limiter = new FailureLimiter({ limit: 0, windowMs: 60_000, maxSources: 2 });
    for (let i = 0; i < 5; i++) limiter.fail('a', 0);
    expect(limiter.retryAfterMs('a', 0)).toBe(0);
    expect(limiter.size).toBe(0);
  });
});
