import { TokenBucket } from './rate-limiter';

describe('token bucket', () => {
  it('serves the burst at once, then paces at qps', async () => {
    const bucket = new TokenBucket(20, 3);
    const start = Date.now();
    await Promise.all([bucket.take(), bucket.take(), bucket.take()]);
    expect(Date.now() - start).toBeLessThan(40);
    await Promise.all([bucket.take(), bucket.take()]);
    // two more tokens at 20/s take about 100 ms
    expect(Date.now() - start).toBeGreaterThanOrEqual(90);
  });

  it('rejects nonsense settings', () => {
    expect(() => new TokenBucket(0, 1)).toThrow(RangeError);
  });
});
