// What a claimed Target's run does, decided from its facts alone: wait for
// the source, wait for its wave, or run at a digest. The run acts on it, and
// the agent send-ahead uses the same decision to send the assignment the run
// would send, before the run's bookkeeping.
import { formatRevision, revisionDigest } from '@flotilla/engine';
import type { ProjectEntity, TargetEntity } from '../database/entities';
import { decideRollout, rolloutGate, type WaveMember } from './rollout';
import { rolloutOptions } from './rollout-options';
import { wavesOf } from './wave-spec';

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

type PlannedProject = Pick<ProjectEntity, 'sourceDigest' | 'sourceTag' | 'rolloutGroups' | 'rolloutWaves' | 'deletionRequestedAt'> & Partial<Pick<ProjectEntity, 'rolloutActions' | 'rolloutWindows'>>;
type PlannedTarget = Pick<TargetEntity, 'id' | 'removalRequestedAt' | 'lastAppliedRevision'> & Partial<Pick<TargetEntity, 'phase' | 'healthySince' | 'revisionSince' | 'lastHealthyRevision' | 'attempt'>>;
type WaveTarget = PlannedTarget & Pick<TargetEntity, 'phase' | 'cluster'>;

/** The Project is being deleted, or the cluster left its targets and its instances go with the Target. */
export function deletesInstances(project: Pick<ProjectEntity, 'deletionRequestedAt'>, target: Pick<TargetEntity, 'removalRequestedAt'>): boolean {
  return project.deletionRequestedAt !== null || target.removalRequestedAt !== null;
}

/** Whether planRun needs the Project's Targets (its wave members). */
export function needsMembers(project: PlannedProject, target: PlannedTarget): boolean {
  return !deletesInstances(project, target) && project.sourceDigest !== null && project.rolloutGroups.length > 0;
}

/** A Target as a member of its Project's waves. */
export function waveMember(t: Pick<TargetEntity, 'id' | 'phase' | 'lastAppliedRevision'> & Partial<Pick<TargetEntity, 'healthySince' | 'revisionSince' | 'attempt'>>, group: string): WaveMember {
  return { id: t.id, group, phase: t.phase, lastAppliedRevision: t.lastAppliedRevision, healthySince: t.healthySince ?? null, revisionSince: t.revisionSince ?? null, attempt: t.attempt ?? 0 };
}

/**
 * `members`: the Project's Targets with their clusters, when needsMembers;
 * `now`: the hub's clock (soaks and progress deadlines are measured on it).
 * Approvals and a hold come with the Project (its rollout actions).
 */
export function planRun(project: PlannedProject, clusterGroup: string, target: PlannedTarget, members: readonly WaveTarget[], now: Date): RunPlan {
  const digest = project.sourceDigest;
  if (deletesInstances(project, target)) return { kind: 'run', deleting: true, digest };
  if (!digest) return { kind: 'pending' };
  if (project.rolloutGroups.length === 0) return { kind: 'run', deleting: false, digest };
  const revision = formatRevision(project.sourceTag, digest);
  // a Target being removed is no longer part of any wave
  const siblings = members.filter((t) => t.id !== target.id && !t.removalRequestedAt);
  const self = waveMember({ ...target, phase: target.phase ?? 'Pending' }, clusterGroup);
  const waves = wavesOf(project);
  const options = rolloutOptions(project, revision, now);
  const decision = decideRollout(waves, revision, [...siblings.map((t) => waveMember(t, t.cluster?.groupName ?? '')), self], now, options);
  const gate = rolloutGate(decision, self.id);
  if (gate.open) return { kind: 'run', deleting: false, digest };
  const message = gate.message ?? `revision ${revision} waits for its wave to open`;
  // rolled back: a Target that took the revision goes back to the last one it was Ready and Healthy on (none: it stays)
  const back = options.rolledBackWave !== undefined && target.lastAppliedRevision === revision ? (target.lastHealthyRevision ?? revision) : target.lastAppliedRevision;
  const pinned = revisionDigest(back);
  // keep the revision it has, correcting drift, until its wave opens
  return pinned ? { kind: 'run', deleting: false, digest: pinned, hold: message } : { kind: 'held', message };
}
