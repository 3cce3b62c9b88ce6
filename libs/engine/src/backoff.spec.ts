import { backoffDelay, defaultBackoffOptions } from './backoff';

describe('backoffDelay', () => {
  const opts = { initialMs: 1000, factor: 2, maxMs: 60_000, jitter: 0.2 };
  const mid = () => 0.5;

  it('doubles per attempt without jitter at the midpoint', () => {
    expect([1, 2, 3, 4].map((a) => backoffDelay(a, opts, mid))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('spreads by the jitter fraction', () => {
    expect(backoffDelay(3, opts, () => 0)).toBe(3200);
    expect(backoffDelay(3, opts, () => 0.999999)).toBe(4800);
  });

  it('never exceeds the cap, jitter included, even for huge attempts', () => {
    expect(backoffDelay(7, opts, () => 0.999999)).toBe(60_000);
    expect(backoffDelay(100_000, opts, () => 0.999999)).toBe(60_000);
    expect(backoffDelay(100_000, opts, () => 0)).toBe(48_000);
  });

  it('treats attempts below 1 as the first', () => {
    expect(backoffDelay(0, opts, mid)).toBe(1000);
  });

  it('has documented defaults', () => {
    expect(defaultBackoffOptions()).toEqual({ initialMs: 5000, factor: 2, maxMs: 600_000, jitter: 0.2 });
  });
});
