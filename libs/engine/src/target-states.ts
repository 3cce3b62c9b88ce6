// The states a hub gives a Target between runs, as conditions: the hub
// decides that a Target waits (for its source, its wave, its agent) or is
// being deleted, and the engine says how that reads, so every condition a
// hub or an agent shows is built here.
import { condition, type Condition } from './conditions';
import { PROGRESSING_REASON } from './reasons';
import type { ReportInstance, RunReport } from './run-report';

/** The Project's tag is not resolved yet (`error`: the last resolution failed). */
export function sourcePendingStatus(source: { repository: string; tag: string; error: string | null }, now: Date, previous: readonly Condition[]): Condition[] {
  const message = source.error ?? `waiting for ${source.repository}:${source.tag} to be resolved`;
  return [condition('Ready', 'False', source.error ? 'SourceResolveFailed' : 'SourcePending', message, now, previous)];
}

/** A rollout wave holds the Target back and it has applied nothing yet. */
export function rolloutHeldStatus(message: string, now: Date, previous: readonly Condition[]): Condition[] {
  return [condition('Ready', 'False', 'RolloutWaiting', message, now, previous)];
}

/** A run that kept the Target on its revision while its wave is closed: Reconciling says what it waits for. */
export function rolloutHoldingStatus(report: RunReport, hold: string, appliedRevision: string | null, now: Date, previous: readonly Condition[]): Condition[] {
  const message = `${hold}; correcting drift on ${report.revision ?? appliedRevision} meanwhile`;
  return [...report.conditions.filter((c) => c.type !== 'Reconciling'), condition('Reconciling', 'True', 'RolloutWaiting', message, now, previous)];
}

/** The Target's instances are being deleted (the Project goes, or the cluster left its targets). */
export function deletingStatus(project: string, cluster: string, projectDeleted: boolean, now: Date, previous: readonly Condition[]): Condition[] {
  const why = projectDeleted ? '' : `, which no longer matches the Project's targets`;
  const message = `deleting the instances of project ${project} from cluster ${cluster}${why}`;
  return [condition('Ready', 'Unknown', PROGRESSING_REASON, message, now, previous), condition('Reconciling', 'True', PROGRESSING_REASON, message, now, previous)];
}

/**
 * While a run goes on: Reconciling says what it does now. A Ready that was
 * not True described an earlier run's failure: it is Unknown meanwhile.
 */
export function progressStatus(message: string, now: Date, previous: readonly Condition[]): Condition[] {
  const before = previous.find((c) => c.type === 'Ready');
  const ready = before?.status === 'True' ? before : condition('Ready', 'Unknown', PROGRESSING_REASON, message, now, previous);
  return [ready, condition('Reconciling', 'True', PROGRESSING_REASON, message, now, previous)];
}

/**
 * A Target whose agent is away keeps what it last reported, but Ready is
 * Unknown: nobody vouches for the cluster now. The reported verdict stays
 * in the message. `since`: when it went away (null: never connected).
 */
export function agentDisconnectedStatus(cluster: string, since: string | null, reported: readonly Condition[]): Condition[] {
  const ready = reported.find((c) => c.type === 'Ready');
  const away = since ? `the agent of cluster ${cluster} has been disconnected since ${since}` : `the agent of cluster ${cluster} has not connected yet`;
  const message = ready ? `${away}; it last reported ${ready.status === 'True' ? 'Ready' : `not Ready (${ready.reason})`}: ${ready.message}` : away;
  const stale: Condition = { type: 'Ready', status: 'Unknown', reason: 'AgentDisconnected', message, lastTransitionTime: since ?? ready?.lastTransitionTime ?? new Date(0).toISOString() };
  return [stale, ...reported.filter((c) => c.type !== 'Ready')];
}

/** A finished run's instances in the order it handled them: applied, then removed (one event each). */
export function reportedInstances(report: Pick<RunReport, 'components' | 'removed'>): ReportInstance[] {
  return [...report.components.flatMap((c) => c.instances), ...report.removed];
}
