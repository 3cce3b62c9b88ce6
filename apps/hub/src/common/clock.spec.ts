import { FixedClock, SystemClock } from './clock';

describe('Clock', () => {
  it('FixedClock stays put until set or advanced, and hands out copies', () => {
    const clock = new FixedClock('2026-01-02T03:04:05.000Z');
    const a = clock.now();
    a.setTime(0);
    expect(clock.now().toISOString()).toBe('2026-01-02T03:04:05.000Z');
    clock.advance(1500);
    expect(clock.now().toISOString()).toBe('2026-01-02T03:04:06.500Z');
    clock.set('2027-01-01T00:00:00Z');
    expect(clock.now().toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('SystemClock reads the system time', () => {
    const before = Date.now();
    const t = new SystemClock().now().getTime();
    expect(t).toBeGreaterThanOrEqual(before);
  });
});
