import { ago, duration, span } from './time';

describe('times as people read them', () => {
  const now = new Date('2026-11-25T12:00:00Z');
  it.each([
    ['2026-11-25T11:59:58Z', '2s ago'],
    ['2026-11-25T11:57:00Z', '3m ago'],
    ['2026-11-25T11:55:30Z', '4m30s ago'],
    ['2026-11-25T10:30:00Z', '1h30m ago'],
    ['2026-11-23T12:00:00Z', '2d ago'],
    ['2026-11-25T12:00:20Z', 'in 20s'],
  ])('%s is %s', (iso, text) => expect(ago(iso, now)).toBe(text));

  it('says "-" for nothing or nonsense', () => {
    expect(ago(null, now)).toBe('-');
    expect(ago('yesterday', now)).toBe('-');
  });

  it('keeps long spans short', () => {
    expect(span(25 * 60_000)).toBe('25m');
    expect(span(30 * 3_600_000)).toBe('30h');
    expect(duration(850)).toBe('850ms');
    expect(duration(4_420)).toBe('4.4s');
    expect(duration(null)).toBe('-');
  });
});
