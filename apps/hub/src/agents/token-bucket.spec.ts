import { TokenBucket } from './token-bucket';

describe('TokenBucket', () => {
  it('lets a burst through, then one message per refilled token', () => {
    const b = new TokenBucket({ perSecond: 2, burst: 3 }, 0);
    expect([b.take(0), b.take(0), b.take(0), b.take(0)]).toEqual([true, true, true, false]);
    // half a second refills one token at 2 per second
    expect(b.take(499)).toBe(false);
    expect(b.take(500)).toBe(true);
    expect(b.take(500)).toBe(false);
  });

  it('never holds more than its burst, however long it was idle', () => {
    const b = new TokenBucket({ perSecond: 10, burst: 2 }, 0);
    expect(b.take(0)).toBe(true);
    const later = 3600_000;
    expect([b.take(later), b.take(later), b.take(later)]).toEqual([true, true, false]);
  });

  it('ignores a clock that went back', () => {
    const b = new TokenBucket({ perSecond: 1, burst: 1 }, 10_000);
    expect(b.take(10_000)).toBe(true);
    expect(b.take(5_000)).toBe(false);
    expect(b.take(11_000)).toBe(true);
  });
});
