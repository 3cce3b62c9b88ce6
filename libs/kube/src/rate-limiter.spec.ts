import { TokenBucket } from './rate-limiter';

describe('token bucket', () => {
  it('serves the burst at once, then paces at qps', async () => {
    const bucket = new TokenBucket(10, 3);
    const start = Date.now();
    await Promise.all([bucket.take(), bucket.take(), bucket.take()]);
    // generous bound: the machine is shared, but pacing would take 100 ms per token
    expect(Date.now() - start).toBeLessThan(90);
    await Promise.all([bucket.take(), bucket.take()]);
    // two more tokens at 10/s take about 200 ms
    expect(Date.now() - start).toBeGreaterThanOrEqual(190);
  });

  it('refills from its clock up to the burst', async () => {
    let now = 0;
    const bucket = new TokenBucket(1, 2, () => now);
    await bucket.take();
    await bucket.take();
    now = 10_000; // ten seconds later only `burst` tokens are saved up
    const t = Date.now();
    await bucket.take();
    await bucket.take();
    expect(Date.now() - t).toBeLessThan(50);
    // a third has to wait for the clock: it is still pending 50 ms later
    const third = bucket.take().then(() => 'served');
    const early = await Promise.race([third, new Promise((r) => setTimeout(() => r('waiting'), 50))]);
    expect(early).toBe('waiting');
    now = 20_000;
    await expect(third).resolves.toBe('served');
  });

  it('rejects nonsense settings', () => {
    expect(() => new TokenBucket(0, 1)).toThrow(RangeError);
  });
});
