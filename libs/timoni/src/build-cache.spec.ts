import { LruPromiseCache } from './build-cache';

describe('LruPromiseCache', () => {
  it('shares one evaluation between concurrent and later callers', async () => {
    const cache = new LruPromiseCache<number>(4);
    let runs = 0;
    const make = () => new Promise<number>((resolve) => setTimeout(() => resolve(++runs), 5));
    const [a, b] = await Promise.all([cache.getOrCreate('k', make), cache.getOrCreate('k', make)]);
    expect([a, b, await cache.getOrCreate('k', make)]).toEqual([1, 1, 1]);
    expect(cache.stats()).toMatchObject({ misses: 1, joins: 1, hits: 1, size: 1 });
  });

  it('evicts the least recently used finished entry', async () => {
    const cache = new LruPromiseCache<string>(2);
    await cache.getOrCreate('a', async () => 'a');
    await cache.getOrCreate('b', async () => 'b');
    await cache.getOrCreate('a', async () => 'x');
    await cache.getOrCreate('c', async () => 'c');
    expect(await cache.getOrCreate('b', async () => 'b2')).toBe('b2');
    expect(await cache.getOrCreate('a', async () => 'a2')).toBe('a2');
    expect(cache.stats().evictions).toBeGreaterThanOrEqual(2);
  });

  it('forgets failures so the next caller retries', async () => {
    const cache = new LruPromiseCache<number>(2);
    await expect(cache.getOrCreate('k', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await new Promise((r) => setImmediate(r));
    expect(await cache.getOrCreate('k', async () => 7)).toBe(7);
  });

  it('refuses a capacity below one', () => {
    expect(() => new LruPromiseCache(0)).toThrow('at least 1');
  });
});
