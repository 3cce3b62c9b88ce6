// What happens after a run: wait for the interval, or retry on the backoff.
// A stall (an error retrying alone cannot fix, such as a broken revision) is
// still retried on the backoff, never later than the interval: retrying costs
// little (the build error is cached) and a fix pushed under the same tag is
// picked up without a manual reconcile.
import { backoffDelay, defaultBackoffOptions, type BackoffOptions } from './backoff';
import type { Decision } from './conditions';

export interface ScheduleContext {
  /** consecutive failures before this run */
  attempt: number;
  /** the Project's interval: when a successful run is next due */
  intervalMs: number;
  backoff?: BackoffOptions;
  /** after a run that left objects unhealthy, the Target is due again within this (default HEALTH_RECHECK_MS) */
  healthRecheckMs?: number;
  /** [0, 1); fixed in tests */
  random?: () => number;
}

export interface RunDecision {
  action: Decision;
  /** consecutive failures including this run (0 after a success) */
  attempt: number;
  /** when the Target is next due, counted from the run's end */
  afterMs: number;
}

export function decideNext(action: Decision, ctx: ScheduleContext): RunDecision {
  if (action === 'done') return { action, attempt: 0, afterMs: ctx.intervalMs };
  const attempt = ctx.attempt + 1;
  const delay = backoffDelay(attempt, ctx.backoff ?? defaultBackoffOptions(), ctx.random);
  return { action, attempt, afterMs: Math.min(delay, ctx.intervalMs) };
}
