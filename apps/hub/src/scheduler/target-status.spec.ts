import type { Condition } from '../database/entities';
import { reconcilingConditions, statusAfterRun } from './target-status';
import type { TargetRunResult } from './target-runner';

const now = new Date('2026-11-22T04:00:00.000Z');
const backoff = { initialMs: 1000, factor: 2, maxMs: 8000, jitter: 0 };
const base = { now, previous: [] as Condition[], attempt: 0, intervalMs: 600_000, backoff };
const ok: TargetRunResult = { ok: true, revision: 'v1@sha256:aa', instances: [], components: [], namespaces: [] };
const failed = (retryable: boolean): TargetRunResult => ({ ...ok, ok: false, error: { reason: 'ApplyFailed', message: 'boom', retryable } });

describe('statusAfterRun', () => {
  it('marks success Ready, resets the attempt and waits for the interval', () => {
    const s = statusAfterRun(ok, { ...base, attempt: 3 });
    expect(s).toMatchObject({ phase: 'Ready', attempt: 0, lastAppliedRevision: 'v1@sha256:aa' });
    expect(s.nextRunAt.toISOString()).toBe('2026-11-22T04:10:00.000Z');
    expect(s.conditions).toEqual([{ type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: 'Applied revision v1@sha256:aa', lastTransitionTime: now.toISOString() }]);
  });

  it('backs off exponentially up to the cap on retryable failures', () => {
    const delays = [0, 1, 2, 3, 4].map((attempt) => statusAfterRun(failed(true), { ...base, attempt }).nextRunAt.getTime() - now.getTime());
    expect(delays).toEqual([1000, 2000, 4000, 8000, 8000]);
    const s = statusAfterRun(failed(true), base);
    expect(s).toMatchObject({ phase: 'Failed', attempt: 1 });
    expect(s.lastAppliedRevision).toBeUndefined();
    expect(s.conditions.map((c) => `${c.type}=${c.status}:${c.reason}`)).toEqual(['Ready=False:ApplyFailed', 'Reconciling=True:ProgressingWithRetry']);
  });

  it('marks errors retrying alone cannot fix Stalled, and still retries them with backoff', () => {
    const s = statusAfterRun(failed(false), base);
    expect(s.conditions.map((c) => `${c.type}=${c.status}`)).toEqual(['Ready=False', 'Stalled=True']);
    expect(s.conditions[1].message).toBe('boom (attempt 1; retrying at 2026-11-22T04:00:01.000Z)');
    const delays = [0, 1, 2, 3].map((attempt) => statusAfterRun(failed(false), { ...base, attempt }).nextRunAt.getTime() - now.getTime());
    expect(delays).toEqual([1000, 2000, 4000, 8000]);
  });

  it('never schedules a retry later than the interval', () => {
    const s = statusAfterRun(failed(true), { ...base, attempt: 4, intervalMs: 3000 });
    expect(s.nextRunAt.getTime() - now.getTime()).toBe(3000);
  });

  it('keeps the transition time of a condition whose status did not change', () => {
    const earlier = '2026-11-21T00:00:00.000Z';
    const s = statusAfterRun(ok, { ...base, previous: [{ type: 'Ready', status: 'True', reason: 'x', message: 'y', lastTransitionTime: earlier }] });
    expect(s.conditions[0].lastTransitionTime).toBe(earlier);
  });
});

describe('reconcilingConditions', () => {
  it('keeps a known Ready and adds Reconciling', () => {
    const ready: Condition = { type: 'Ready', status: 'True', reason: 'r', message: 'm', lastTransitionTime: 't' };
    expect(reconcilingConditions(now, [ready], 'v2@sha256:bb')).toEqual([ready, expect.objectContaining({ type: 'Reconciling', status: 'True', message: 'Reconciling revision v2@sha256:bb' })]);
  });
});
