import { decideNext } from './run-decision';

const backoff = { initialMs: 1000, factor: 2, maxMs: 60_000, jitter: 0 };

describe('decideNext', () => {
  it('a success waits for the interval and resets the attempt count', () => {
    expect(decideNext('done', { attempt: 3, intervalMs: 600_000, backoff })).toEqual({ action: 'done', attempt: 0, afterMs: 600_000 });
  });

  it('each further failure doubles the delay', () => {
    expect(decideNext('retry', { attempt: 0, intervalMs: 600_000, backoff })).toEqual({ action: 'retry', attempt: 1, afterMs: 1000 });
    expect(decideNext('retry', { attempt: 2, intervalMs: 600_000, backoff })).toEqual({ action: 'retry', attempt: 3, afterMs: 4000 });
  });

  it('a stall is still retried on the backoff, never later than the interval', () => {
    expect(decideNext('stall', { attempt: 10, intervalMs: 30_000, backoff })).toEqual({ action: 'stall', attempt: 11, afterMs: 30_000 });
  });
});
