import { windowCheck, windowProblem, type WindowSpec } from './rollout-windows';

const weekdays: WindowSpec = { kind: 'allow', schedule: '0 9 * * 1-5', duration: '8h', timeZone: 'Europe/Berlin' };
const friday: WindowSpec = { kind: 'deny', schedule: '0 12 * * 5', duration: '12h' };

describe('rollout windows', () => {
  it('is open at any time without windows', () => {
    expect(windowCheck([], new Date('2026-11-28T03:00:00Z'))).toEqual({ open: true });
  });

  it('opens an allow window at its schedule, in its time zone, for its duration', () => {
    // Monday 30 November 2026: 09:00 in Berlin is 08:00 UTC
    expect(windowCheck([weekdays], new Date('2026-11-30T07:59:00Z')).open).toBe(false);
    expect(windowCheck([weekdays], new Date('2026-11-30T08:00:00Z'))).toEqual({ open: true });
    expect(windowCheck([weekdays], new Date('2026-11-30T15:59:00Z'))).toEqual({ open: true });
    expect(windowCheck([weekdays], new Date('2026-11-30T16:00:00Z'))).toEqual({ open: false, reason: 'outside every allow window (allow "0 9 * * 1-5" for 8h (Europe/Berlin))' });
    // Saturday
    expect(windowCheck([weekdays], new Date('2026-11-28T10:00:00Z')).open).toBe(false);
  });

  it('closes inside a deny window, whatever the allow windows say', () => {
    const during = new Date('2026-12-04T13:00:00Z');
    expect(windowCheck([weekdays, friday], during)).toEqual({ open: false, reason: 'inside the deny window deny "0 12 * * 5" for 12h (UTC)' });
    expect(windowCheck([weekdays, friday], new Date('2026-12-04T09:00:00Z'))).toEqual({ open: true });
  });

  it('names what is wrong with a schedule or a time zone', () => {
    expect(windowProblem({ schedule: '0 9 * * 1-5', timeZone: 'Europe/Berlin' })).toBeUndefined();
    expect(windowProblem({ schedule: '0 9 * *' })).toBe('schedule: must be a cron expression of five fields: minute hour day-of-month month day-of-week');
    expect(windowProblem({ schedule: '61 9 * * *' })).toMatch(/^schedule: /);
    expect(windowProblem({ schedule: '0 9 * * *', timeZone: 'Mars/Olympus' })).toBe('timeZone: "Mars/Olympus" is not an IANA time zone such as Europe/Berlin');
  });
});
