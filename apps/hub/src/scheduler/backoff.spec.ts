import { backoffDelay, defaultBackoffOptions } from './backoff';

describe('backoffDelay', () => {
  const opts = { initialMs: 1000, factor: 2, maxMs: 30_000, jitter: 0.2 };
  const mid = () => 0.5;

  it('doubles per attempt without jitter at the midpoint', () => {
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, opts, mid))).toEqual([1000, 2000, 4000, 8000, 16000]);
  });

  it('is capped, jitter included', () => {
    expect(backoffDelay(6, opts, mid)).toBe(30_000);
    expect(backoffDelay(1000, opts, () => 0.999)).toBe(30_000);
  });

  it('spreads by the jitter fraction', () => {
    expect(backoffDelay(2, opts, () => 0)).toBe(1600);
    expect(backoffDelay(2, opts, () => 0.9999)).toBe(2400);
  });

  it('treats attempts below one as the first', () => {
    expect(backoffDelay(0, opts, mid)).toBe(1000);
  });

  it('has a documented default', () => {
    expect(defaultBackoffOptions()).toEqual({ initialMs: 5000, factor: 2, maxMs: 600_000, jitter: 0.2 });
  });
});
