// The contract between the engine and whoever stores or transports its
// results (the hub's database, the agent's stream): plain data that survives
// JSON.stringify/parse unchanged, versioned, with the conditions and the
// retry decision already made, so callers compute no status of their own.
import type { ChangeSetEntry } from '@flotilla/kube';
import { addCounts, emptyCounts } from './change-counts';
import { runErrors, runStatus, type Condition } from './conditions';
import { EngineError, type ReconcileStep } from './errors';
import { decideNext, type RunDecision, type ScheduleContext } from './run-decision';
import type { ChangeCounts, ComponentStatus, InstanceResult, ModuleInfo, PrunedInstance, RunResult, RunTimings } from './types';
import type { FailureReason } from './reasons';

export const RUN_REPORT_VERSION = 1;

export interface ReportError {
  /** PascalCase, as in the conditions */
  reason: FailureReason;
  step: ReconcileStep;
  message: string;
  /** false: retrying the same revision cannot help */
  retryable: boolean;
  component?: string;
  instance?: string;
  /** the Kubernetes object involved (`Kind/namespace/name`), when one is known */
  object?: string;
}

export type InstanceAction = 'applied' | 'pruned' | 'deleted';

export interface ReportInstance {
  name: string;
  namespace: string;
  component: string;
  action: InstanceAction;
  bundle?: string;
  module?: ModuleInfo;
  /** applied and healthy (waited for, or checked once after the apply); for pruned and deleted: gone */
  ready: boolean;
  /** what was not healthy yet: `Kind/namespace/name Status: message` */
  notReady?: string[];
  durationMs: number;
  counts: ChangeCounts;
  /** `Kind/namespace/name` of every object applied or deleted */
  objects: string[];
  error?: ReportError;
}

/** `Running`: only in the progress a controller shows while a run goes on, never in a finished report */
export type ReportComponentStatus = ComponentStatus | 'Running';

export interface ReportComponent {
  name: string;
  status: ReportComponentStatus;
  /** while the run goes on: `Kind/namespace/name` of the objects the component waits for */
  waitingFor?: string[];
  bundle?: string;
  /** RFC 3339 */
  startedAt?: string;
  durationMs: number;
  /** every instance the bundle declares, applied or not */
  declared: Array<{ name: string; namespace: string }>;
  instances: ReportInstance[];
  error?: ReportError;
}

export interface RunReport {
  version: typeof RUN_REPORT_VERSION;
  /** reconcile: apply and prune; delete: every instance of the Project removed */
  kind: 'reconcile' | 'delete';
  project: { name: string; namespace: string };
  cluster: { name: string; group: string };
  /** `oci://host/repo` */
  source: string;
  tag: string;
  digest?: string;
  /** `tag@sha256:…`, once the digest is known */
  revision?: string;
  ok: boolean;
  /** RFC 3339 */
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  timings: RunTimings;
  /** all instances together */
  counts: ChangeCounts;
  components: ReportComponent[];
  /** instances that left their component or the project (deleted ones for kind `delete`) */
  removed: ReportInstance[];
  /** namespaces that hold the Project's instances after this run: pass back on the next run */
  namespaces: string[];
  conditions: Condition[];
  decision: RunDecision;
  /** hooks that threw, instances left alone because another owner holds them */
  warnings: string[];
  /** every error of the run, the first being the one the Ready condition names */
  errors: ReportError[];
}

export interface ReportContext extends ScheduleContext {
  /** the Target's conditions before the run (transition times are kept) */
  previous?: readonly Condition[];
}

/** The report of a run, with its decision. */
export function buildRunReport(result: RunResult, ctx: ReportContext, kind: RunReport['kind'] = 'reconcile'): RunReport {
  const previous = ctx.previous ?? [];
  const verdict = runStatus(result, result.finishedAt, previous);
  const decision = recheckUnhealthy(decideNext(verdict.decision, ctx), verdict.conditions, ctx.healthRecheckMs ?? HEALTH_RECHECK_MS);
  const next = decision.action === 'done' ? undefined : { attempt: decision.attempt, at: new Date(result.finishedAt.getTime() + decision.afterMs) };
  const status = runStatus(result, result.finishedAt, previous, next);
  const removedAction: InstanceAction = kind === 'delete' ? 'deleted' : 'pruned';
  const components = result.components.map(
    (c): ReportComponent => ({
      name: c.name,
      status: c.status,
      ...(c.bundle !== undefined ? { bundle: c.bundle } : {}),
      ...(c.startedAt ? { startedAt: c.startedAt.toISOString() } : {}),
      durationMs: c.durationMs,
      declared: (c.instanceNames ?? []).map((i) => ({ name: i.name, namespace: i.namespace })),
      instances: c.instances.map(appliedInstance),
      ...(c.error ? { error: reportError(c.error) } : {}),
    }),
  );
  const removed = result.pruned.map((p) => removedInstance(p, removedAction));
  const counts = [...components.flatMap((c) => c.instances), ...removed].reduce((sum, i) => addCounts(sum, i.counts), emptyCounts());
  return {
    version: RUN_REPORT_VERSION,
    kind,
    project: { ...result.project },
    cluster: { ...result.cluster },
    source: result.source,
    tag: result.tag,
    ...(result.digest !== undefined ? { digest: result.digest } : {}),
    ...(result.revision !== undefined ? { revision: result.revision } : {}),
    ok: status.decision === 'done',
    startedAt: result.startedAt.toISOString(),
    finishedAt: result.finishedAt.toISOString(),
    durationMs: result.durationMs,
    timings: { ...result.timings },
    counts,
    components,
    removed,
    namespaces: [...result.namespaces],
    conditions: status.conditions.map((c) => ({ ...c })),
    decision,
    warnings: [...result.warnings],
    errors: runErrors(result).map(reportError),
  };
}

/** An engine error as data; the object involved is found in its cause chain. */
export function reportError(err: EngineError): ReportError {
  const where = err as Partial<{ component: string; instance: string }>;
  const object = objectOf(err);
  return {
    reason: err.reason,
    step: err.step,
    message: err.message,
    retryable: err.retryable,
    ...(typeof where.component === 'string' ? { component: where.component } : {}),
    ...(typeof where.instance === 'string' ? { instance: where.instance } : {}),
    ...(object ? { object } : {}),
  };
}

function objectOf(err: unknown): string | undefined {
  for (let e = err; e instanceof Error; e = e.cause) {
    const subject = (e as { subject?: unknown }).subject;
    if (typeof subject === 'string' && subject !== '') return subject;
  }
  return undefined;
}

function objectsOf(changes: readonly ChangeSetEntry[]): string[] {
  return changes.map((c) => c.subject);
}

/** An applied instance as the report shows it (also for hooks while the run goes on). */
export function appliedInstance(i: InstanceResult): ReportInstance {
  return {
    name: i.name,
    namespace: i.namespace,
    component: i.component,
    action: 'applied',
    bundle: i.bundle,
    ...(i.module ? { module: { ...i.module } } : {}),
    ready: i.ready,
    ...(i.notReady?.length ? { notReady: [...i.notReady] } : {}),
    durationMs: i.durationMs,
    counts: { ...i.counts },
    objects: objectsOf(i.changes),
    ...(i.error ? { error: reportError(i.error) } : {}),
  };
}

/** A pruned or deleted instance as the report shows it. */
export function removedInstance(p: PrunedInstance, action: InstanceAction): ReportInstance {
  return {
    name: p.name,
    namespace: p.namespace,
    component: p.component,
    action,
    ready: !p.error,
    durationMs: p.durationMs ?? 0,
    counts: { ...p.counts },
    objects: objectsOf(p.changes),
    ...(p.error ? { error: reportError(p.error) } : {}),
  };
}

/** The next time the report's Target is due. */
export function nextRunAt(report: Pick<RunReport, 'finishedAt' | 'decision'>): Date {
  return new Date(new Date(report.finishedAt).getTime() + report.decision.afterMs);
}

/** A run that applied but left objects unhealthy looks again soon, so Healthy does not stay stale for a whole interval. */
export const HEALTH_RECHECK_MS = 30_000;

function recheckUnhealthy(decision: RunDecision, conditions: readonly Condition[], recheckMs: number): RunDecision {
  const unhealthy = conditions.some((c) => c.type === 'Healthy' && c.status === 'False');
  return decision.action === 'done' && unhealthy ? { ...decision, afterMs: Math.min(decision.afterMs, recheckMs) } : decision;
}
