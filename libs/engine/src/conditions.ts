// A run's result as status: conditions Ready / Reconciling / Stalled with
// PascalCase reasons (Flux's kstatus conventions), and the decision the
// scheduler acts on: done, retry with backoff, or stalled until the source
// (or the Project's spec) changes.
import type { EngineError } from './errors';
import { type ConditionReason, HEALTHY_REASON, PROGRESSING_REASON, READY_REASON, RETRY_REASON } from './reasons';
import type { RunResult } from './types';

/** Healthy: whether what was applied is healthy, assessed after every apply (waited for or not). */
export type ConditionType = 'Ready' | 'Reconciling' | 'Stalled' | 'Healthy';

export interface Condition {
  type: ConditionType;
  status: 'True' | 'False' | 'Unknown';
  reason: ConditionReason;
  message: string;
  /** RFC 3339; kept from the previous condition of the type when the status did not change */
  lastTransitionTime: string;
}

export type Decision = 'done' | 'retry' | 'stall';

export interface RunStatus {
  conditions: Condition[];
  /** done: wait for the interval; retry: back off; stall: no retries until a new revision or generation */
  decision: Decision;
  reason: string;
  message: string;
}


/** Every error of the run: the run-level one, then each failed component's, then prune errors. */
export function runErrors(result: RunResult): EngineError[] {
  const errors: EngineError[] = [];
  const push = (e: EngineError | undefined) => {
    if (e && !errors.includes(e)) errors.push(e);
  };
  for (const c of result.components) if (c.status === 'Failed') push(c.error);
  for (const p of result.pruned) push(p.error);
  if (result.error && result.error.reason !== 'DependencyNotReady') push(result.error);
  return errors;
}

export function condition(type: ConditionType, status: Condition['status'], reason: ConditionReason, message: string, now: Date, previous: readonly Condition[]): Condition {
  const before = previous.find((c) => c.type === type);
  const lastTransitionTime = before && before.status === status ? before.lastTransitionTime : now.toISOString();
  return { type, status, reason, message, lastTransitionTime };
}

/** When a failed run is retried, for the condition messages. */
export interface NextAttempt {
  attempt: number;
  at: Date;
}

/** Status after a run. `previous` keeps transition times of unchanged conditions. */
export function runStatus(result: RunResult, now: Date, previous: readonly Condition[] = [], next?: NextAttempt): RunStatus {
  const errors = runErrors(result);
  if (result.ok || errors.length === 0) {
    const instances = result.components.reduce((n, c) => n + c.instances.length, 0);
    const message = `Applied revision ${result.revision ?? '(unknown)'}: ${result.components.length} component(s), ${instances} instance(s)`;
    const healthy = healthCondition(result, now, previous);
    const ready = condition('Ready', 'True', READY_REASON, healthy.status === 'True' ? message : `${message}; ${healthy.message}`, now, previous);
    return { decision: 'done', reason: READY_REASON, message, conditions: [ready, healthy] };
  }
  const first = errors[0];
  const message = errors.map((e) => e.message).join('; ');
  const retry = errors.some((e) => e.retryable);
  const ready = condition('Ready', 'False', first.reason, message, now, previous);
  const when = next ? `attempt ${next.attempt}; retrying at ${next.at.toISOString()}` : undefined;
  if (retry) {
    const retrying = condition('Reconciling', 'True', RETRY_REASON, when ? `attempt ${next!.attempt} failed; retrying at ${next!.at.toISOString()}` : `Retrying after: ${first.message}`, now, previous);
    return { decision: 'retry', reason: first.reason, message, conditions: [ready, retrying] };
  }
  const stalled = condition('Stalled', 'True', first.reason, when ? `${message} (${when})` : message, now, previous);
  return { decision: 'stall', reason: first.reason, message, conditions: [ready, stalled] };
}

/**
 * Healthy after a successful apply: True when every instance's objects were
 * healthy (waited for, or checked once right after an apply without `wait`),
 * else False naming the objects that are not.
 */
function healthCondition(result: RunResult, now: Date, previous: readonly Condition[]): Condition {
  const notReady = result.components.flatMap((c) => c.instances.flatMap((i) => i.notReady ?? []));
  if (notReady.length === 0) return condition('Healthy', 'True', HEALTHY_REASON, 'every applied object is healthy', now, previous);
  const shown = notReady.slice(0, 5).join('; ');
  const more = notReady.length > 5 ? ` and ${notReady.length - 5} more` : '';
  return condition('Healthy', 'False', PROGRESSING_REASON, `${notReady.length} object(s) not healthy yet: ${shown}${more}`, now, previous);
}

/** Status while a run is in progress: Reconciling, Ready Unknown unless it was already known. */
export function reconcilingStatus(now: Date, previous: readonly Condition[] = [], revision?: string): Condition[] {
  const message = revision ? `Reconciling revision ${revision}` : 'Reconciliation in progress';
  const ready = previous.find((c) => c.type === 'Ready') ?? condition('Ready', 'Unknown', PROGRESSING_REASON, message, now, previous);
  return [ready, condition('Reconciling', 'True', PROGRESSING_REASON, message, now, previous)];
}
