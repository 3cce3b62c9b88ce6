import { ReconnectBackoff } from './reconnect-backoff';

describe('ReconnectBackoff', () => {
  it('doubles up to the cap, each wait in the upper half of its ceiling', () => {
    const low = new ReconnectBackoff(1000, 8000, () => 0);
    expect([low.next(), low.next(), low.next(), low.next(), low.next()]).toEqual([500, 1000, 2000, 4000, 4000]);
    const high = new ReconnectBackoff(1000, 8000, () => 1);
    expect([high.next(), high.next(), high.next(), high.next(), high.next()]).toEqual([1000, 2000, 4000, 8000, 8000]);
  });

  it('starts over after a good connection', () => {
    const b = new ReconnectBackoff(1000, 8000, () => 1);
    b.next();
    b.next();
    b.reset();
    expect(b.next()).toBe(1000);
  });

  it('spreads agents that retry at the same moment', () => {
    const waits = new Set(Array.from({ length: 50 }, () => new ReconnectBackoff(1000, 60_000).next()));
    expect(waits.size).toBeGreaterThan(10);
  });
});
