// A run's result as Target status: phase, conditions (Ready / Reconciling /
// Stalled), backoff attempt and next run time. Pure, so the schedule is testable.
import type { Condition } from '../database/entities';
import { backoffDelay, type BackoffOptions } from '@flotilla/engine';
import type { TargetRunResult } from './target-runner';

export interface TargetStatus {
  phase: 'Ready' | 'Failed';
  conditions: Condition[];
  attempt: number;
  nextRunAt: Date;
  /** set only when the run succeeded */
  lastAppliedRevision?: string;
}

export interface StatusContext {
  now: Date;
  previous: readonly Condition[];
  /** consecutive failures before this run */
  attempt: number;
  intervalMs: number;
  backoff: BackoffOptions;
  random?: () => number;
}

export function condition(type: string, status: Condition['status'], reason: string, message: string, now: Date, previous: readonly Condition[]): Condition {
  const before = previous.find((c) => c.type === type);
  const lastTransitionTime = before && before.status === status ? before.lastTransitionTime : now.toISOString();
  return { type, status, reason, message, lastTransitionTime };
}

/**
 * Success waits for the interval; a failure backs off. A stall (an error a
 * retry alone cannot fix, such as a broken revision) is marked Stalled but
 * still retried with the same backoff, never later than the interval: retries
 * of a broken revision cost little (its build error is cached) and a fix
 * pushed under the same tag is picked up without a manual reconcile.
 */
export function statusAfterRun(result: TargetRunResult, ctx: StatusContext): TargetStatus {
  const { now, previous } = ctx;
  if (result.ok) {
    const message = `Applied revision ${result.revision}`;
    return {
      phase: 'Ready',
      conditions: [condition('Ready', 'True', 'ReconciliationSucceeded', message, now, previous)],
      attempt: 0,
      nextRunAt: new Date(now.getTime() + ctx.intervalMs),
      lastAppliedRevision: result.revision,
    };
  }
  const error = result.error ?? { reason: 'ReconciliationFailed', message: 'the run failed without an error', retryable: true };
  const attempt = ctx.attempt + 1;
  const ready = condition('Ready', 'False', error.reason, error.message, now, previous);
  const delay = Math.min(backoffDelay(attempt, ctx.backoff, ctx.random), ctx.intervalMs);
  const next = new Date(now.getTime() + delay);
  if (error.retryable) {
    const retrying = condition('Reconciling', 'True', 'ProgressingWithRetry', `attempt ${attempt} failed; retrying at ${next.toISOString()}`, now, previous);
    return { phase: 'Failed', conditions: [ready, retrying], attempt, nextRunAt: next };
  }
  const stalled = condition('Stalled', 'True', error.reason, `${error.message} (attempt ${attempt}; retrying at ${next.toISOString()})`, now, previous);
  return { phase: 'Failed', conditions: [ready, stalled], attempt, nextRunAt: next };
}

/** Conditions while a run is in progress. */
export function reconcilingConditions(now: Date, previous: readonly Condition[], revision: string): Condition[] {
  const message = `Reconciling revision ${revision}`;
  const ready = previous.find((c) => c.type === 'Ready') ?? condition('Ready', 'Unknown', 'Progressing', message, now, previous);
  return [ready, condition('Reconciling', 'True', 'Progressing', message, now, previous)];
}
