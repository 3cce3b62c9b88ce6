// The Project's status written from what the engine reports: its
// conditions as they are, the revisions, and per component the instances
// with their module, readiness and object count. The agent computes no
// verdict of its own.
import { reconcilingStatus, type Condition, type ReportComponent, type ReportError, type ReportInstance, type RunReport } from '@flotilla/engine';
import type { ProjectComponentStatus, ProjectCondition, ProjectInstanceStatus, ProjectResourceStatus } from './project-resource';

/** Status messages are cut here; the full text is in the Events. */
const MESSAGE_LIMIT = 4096;

function cut(s: string): string {
  return s.length <= MESSAGE_LIMIT ? s : `${s.slice(0, MESSAGE_LIMIT - 3)}...`;
}

function withGeneration(conditions: readonly Condition[], generation: number | undefined): ProjectCondition[] {
  return conditions.map((c) => ({ ...c, message: cut(c.message), ...(generation !== undefined ? { observedGeneration: generation } : {}) }));
}

function errorText(e: ReportError | undefined): string | undefined {
  return e ? cut(e.object ? `${e.message} (${e.object})` : e.message) : undefined;
}

function instanceStatus(i: ReportInstance): ProjectInstanceStatus {
  const error = errorText(i.error);
  return {
    name: i.name,
    namespace: i.namespace,
    ...(i.module ? { module: { name: i.module.name, version: i.module.version, ...(i.module.digest ? { digest: i.module.digest } : {}) } } : {}),
    ready: i.ready,
    objects: i.objects.length,
    ...(error ? { error } : {}),
  };
}

function componentStatus(c: ReportComponent): ProjectComponentStatus {
  const error = errorText(c.error);
  return { name: c.name, status: c.status, instances: c.instances.map(instanceStatus), ...(error ? { error } : {}) };
}

/** The status after a reconcile run; `handledRequest` is the reconcile annotation value this run answered. */
export function statusAfterRun(report: RunReport, generation: number | undefined, previous: ProjectResourceStatus | undefined, handledRequest: string | undefined): ProjectResourceStatus {
  const applied = report.ok && report.revision ? report.revision : previous?.lastAppliedRevision;
  const nextAt = new Date(Date.parse(report.finishedAt) + report.decision.afterMs).toISOString();
  return {
    observedGeneration: generation,
    conditions: withGeneration(report.conditions, generation),
    ...(applied ? { lastAppliedRevision: applied } : {}),
    ...appliedBefore(applied, previous),
    ...(report.revision ? { lastAttemptedRevision: report.revision } : previous?.lastAttemptedRevision ? { lastAttemptedRevision: previous.lastAttemptedRevision } : {}),
    ...(handledRequest !== undefined ? { lastHandledReconcileAt: handledRequest } : previous?.lastHandledReconcileAt !== undefined ? { lastHandledReconcileAt: previous.lastHandledReconcileAt } : {}),
    // a run that failed before reading the Project (no components) keeps what is known of them
    components: report.components.length > 0 || report.ok ? report.components.map(componentStatus) : (previous?.components ?? []),
    namespaces: report.namespaces,
    nextReconcileAt: nextAt,
    failures: report.decision.attempt,
  };
}

/** Revisions applied before `applied`, newest first; each once. */
export const APPLIED_REVISIONS_KEPT = 10;

function appliedBefore(applied: string | undefined, previous: ProjectResourceStatus | undefined): Pick<ProjectResourceStatus, 'appliedRevisions'> {
  const last = previous?.lastAppliedRevision;
  const before = previous?.appliedRevisions ?? [];
  const list = last && last !== applied ? [last, ...before] : before;
  const kept = [...new Set(list.filter((r) => r !== applied))].slice(0, APPLIED_REVISIONS_KEPT);
  return kept.length > 0 ? { appliedRevisions: kept } : {};
}

/** The status while a run is in progress: Reconciling True, Ready kept (or Unknown at first). */
export function statusReconciling(previous: ProjectResourceStatus | undefined, generation: number | undefined, now: Date, revision?: string): ProjectResourceStatus {
  const conditions = reconcilingStatus(now, (previous?.conditions ?? []) as Condition[], revision);
  return { ...previous, conditions: withGeneration(conditions, generation) };
}

/** Conditions for a Project the agent refuses to run (bad annotations): Stalled until it changes. */
export function statusInvalid(previous: ProjectResourceStatus | undefined, generation: number | undefined, now: Date, problems: string[]): ProjectResourceStatus {
  const message = cut(problems.join('; '));
  const at = now.toISOString();
  const keep = (type: string, status: string) => {
    const before = previous?.conditions?.find((c) => c.type === type);
    return before && before.status === status ? before.lastTransitionTime : at;
  };
  return {
    ...previous,
    observedGeneration: generation,
    conditions: [
      { type: 'Ready', status: 'False', reason: 'InvalidProject', message, lastTransitionTime: keep('Ready', 'False'), ...(generation !== undefined ? { observedGeneration: generation } : {}) },
      { type: 'Stalled', status: 'True', reason: 'InvalidProject', message, lastTransitionTime: keep('Stalled', 'True'), ...(generation !== undefined ? { observedGeneration: generation } : {}) },
    ],
  };
}
