import { formatDuration, parseDuration, parseDurationMs } from './duration';

describe('durations', () => {
  it.each([
    ['10m', 600],
    ['1h30m', 5400],
    ['45s', 45],
    ['2h', 7200],
    ['1m30s', 90],
  ])('%s is %d seconds and formats back', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
    expect(formatDuration(seconds)).toBe(text);
  });

  it.each(['', '10', 'm', '1.5h', '10 m', '-1m', '1d'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('durations in milliseconds', () => {
  it.each([
    ['250ms', 250],
    ['1s500ms', 1500],
    ['2m', 120_000],
    ['1h', 3_600_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  it.each(['', '10', 'ms', '1.5s', '5 ms'])('rejects %j', (text) => {
    expect(parseDurationMs(text)).toBeUndefined();
  });
});
