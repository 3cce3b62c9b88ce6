import { TokenBucket } from './rate-limiter';

/** A clock that only moves when the bucket sleeps, and the waits it asked for. */
function fakeTime() {
  const t = { now: 0, waits: [] as number[] };
  const sleep = async (ms: number) => {
    t.waits.push(ms);
    t.now += ms;
  };
  return { t, now: () => t.now, sleep };
}

describe('token bucket', () => {
  it('serves the burst at once, then paces at qps', async () => {
    const { t, now, sleep } = fakeTime();
    const bucket = new TokenBucket(10, 3, now, sleep);
    await Promise.all([bucket.take(), bucket.take(), bucket.take()]);
    expect(t.waits).toEqual([]);
    await Promise.all([bucket.take(), bucket.take()]);
    // two more tokens at 10/s: 100 ms each
    expect(t.waits).toEqual([100, 100]);
    expect(t.now).toBe(200);
  });

  it('refills from its clock up to the burst', async () => {
    const { t, now, sleep } = fakeTime();
    const bucket = new TokenBucket(1, 2, now, sleep);
    await bucket.take();
    await bucket.take();
    t.now = 10_000; // ten seconds later only `burst` tokens are saved up
    await bucket.take();
    await bucket.take();
    expect(t.waits).toEqual([]);
    await bucket.take();
    expect(t.waits).toEqual([1000]);
  });

  it('serves callers in arrival order', async () => {
    const { now, sleep } = fakeTime();
    const bucket = new TokenBucket(5, 1, now, sleep);
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((i) => bucket.take().then(() => order.push(i))));
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('paces in real time by default', async () => {
    const bucket = new TokenBucket(1000, 1);
    await bucket.take();
    await bucket.take(); // would hang if the default sleep never resolved
  });

  it('rejects nonsense settings', () => {
    expect(() => new TokenBucket(0, 1)).toThrow(RangeError);
  });
});
