// What a claimed Target's run does, decided from its facts alone: wait for
// the source, wait for its wave, or run at a digest. The run acts on it, and
// the agent send-ahead uses the same decision to send the assignment the run
// would send, before the run's bookkeeping.
import { formatRevision, revisionDigest } from '@flotilla/engine';
import type { ProjectEntity, TargetEntity } from '../database/entities';
import { holdMessage, rolloutGate } from './rollout';

export type RunPlan =
  /** the tag is not resolved yet (or resolving failed) */
  | { kind: 'pending' }
  /** its wave is closed and it has applied nothing yet */
  | { kind: 'held'; message: string }
  | PlannedRun;

/** `digest`: null only when deleting before any digest was known; `hold`: its wave keeps it on the digest it has. */
export interface PlannedRun {
  kind: 'run';
  deleting: boolean;
  digest: string | null;
  hold?: string;
}

type PlannedProject = Pick<ProjectEntity, 'sourceDigest' | 'sourceTag' | 'rolloutGroups' | 'deletionRequestedAt'>;
type PlannedTarget = Pick<TargetEntity, 'id' | 'removalRequestedAt' | 'lastAppliedRevision'>;
type WaveTarget = PlannedTarget & Pick<TargetEntity, 'phase' | 'cluster'>;

/** The Project is being deleted, or the cluster left its targets and its instances go with the Target. */
export function deletesInstances(project: Pick<ProjectEntity, 'deletionRequestedAt'>, target: Pick<TargetEntity, 'removalRequestedAt'>): boolean {
  return project.deletionRequestedAt !== null || target.removalRequestedAt !== null;
}

/** Whether planRun needs the Project's Targets (its wave members). */
export function needsMembers(project: PlannedProject, target: PlannedTarget): boolean {
  return !deletesInstances(project, target) && project.sourceDigest !== null && project.rolloutGroups.length > 0;
}

/** `members`: the Project's Targets with their clusters, when needsMembers. */
export function planRun(project: PlannedProject, clusterGroup: string, target: PlannedTarget, members: readonly WaveTarget[]): RunPlan {
  const digest = project.sourceDigest;
  if (deletesInstances(project, target)) return { kind: 'run', deleting: true, digest };
  if (!digest) return { kind: 'pending' };
  if (project.rolloutGroups.length === 0) return { kind: 'run', deleting: false, digest };
  const revision = formatRevision(project.sourceTag, digest);
  // a Target being removed is no longer part of any wave
  const siblings = members.filter((t) => t.id !== target.id && !t.removalRequestedAt);
  const gate = rolloutGate(
    project.rolloutGroups,
    clusterGroup,
    revision,
    siblings.map((t) => ({ group: t.cluster?.groupName ?? '', phase: t.phase, lastAppliedRevision: t.lastAppliedRevision })),
  );
  if (gate.open) return { kind: 'run', deleting: false, digest };
  const message = holdMessage(revision, gate.waitingFor ?? '');
  const pinned = revisionDigest(target.lastAppliedRevision);
  // keep the revision it has, correcting drift, until its wave opens
  return pinned ? { kind: 'run', deleting: false, digest: pinned, hold: message } : { kind: 'held', message };
}
