import { formatRevision } from '@flotilla/engine';
import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { ProjectEntity } from '../database/entities';
import { RunWakeup } from '../notify/run-wakeup';
import { TargetsRepository } from '../repositories/targets.repository';
import { decideRollout, rollbackTargets, targetsToAdvance } from '../rollout/rollout';
import { waveMember } from '../rollout/run-plan';
import { rolloutOptions } from '../rollout/rollout-options';
import { wavesOf } from '../rollout/wave-spec';
import { RolloutProjectsRepository } from '../rollout/rollout-projects.repository';
import { UnitOfWork } from '../repositories/unit-of-work';
import { EventsService } from '../events/events.service';
import { WaveAnnouncer } from '../rollout/wave-announcer';

/**
 * After a Target reports on the Project's revision, or when a soak or a
 * progress deadline may have passed, a rollout wave may open or a batch
 * slot free: those Targets move to the revision, push and agent alike, by
 * the status they reported.
 */
@Injectable()
export class WaveAdvance {
  constructor(
    private readonly targets: TargetsRepository,
    private readonly wakeup: RunWakeup,
    private readonly clock: Clock,
    private readonly rollouts: RolloutProjectsRepository,
    private readonly uow: UnitOfWork,
    private readonly events: EventsService,
    private readonly announcer: WaveAnnouncer,
  ) {}

  async afterSuccess(project: ProjectEntity, _clusterGroup: string, revision: string): Promise<void> {
    if (project.sourceDigest === null || revision !== formatRevision(project.sourceTag, project.sourceDigest)) return;
    await this.advance(project);
  }

  /** Moves the Targets whose turn it is; returns how many moved. */
  async advance(project: ProjectEntity): Promise<number> {
    if (project.rolloutGroups.length === 0 || project.sourceDigest === null || project.deletionRequestedAt !== null) return 0;
    const revision = formatRevision(project.sourceTag, project.sourceDigest);
    const all = (await this.targets.forProject(project.id)).filter((t) => !t.removalRequestedAt);
    const members = all.map((t) => waveMember(t, t.cluster?.groupName ?? ''));
    const options = rolloutOptions(project, revision, this.clock.now());
    const decision = decideRollout(wavesOf(project), revision, members, this.clock.now(), options);
    // told before acted on: the early returns below are transitions too
    await this.announcer.announce(project, revision, decision);
    const failed = decision.waves.find((w) => w.state === 'failed');
    if (failed && project.rolloutOnFailure === 'rollback' && options.rolledBackWave === undefined) return this.rollBack(project, revision, failed.index, 'flotilla (automatic: past the failure budget)');
    const already = new Set(all.filter((t) => t.advanceToRevision === revision).map((t) => t.id));
    // those already told to move are not made due again by every pass
    const advancing = targetsToAdvance(decision, members).filter((id) => !already.has(id));
    if (advancing.length === 0) return 0;
    await this.targets.advanceTo(advancing, revision);
    this.wakeup.wake();
    return advancing.length;
  }

  /**
   * Rolls `revision` back from wave `wave` on: recorded on the Project, and
   * that wave's Targets that took it run now, back on the last revision each
   * was Ready and Healthy on (planRun pins it). Returns how many run.
   */
  async rollBack(project: ProjectEntity, revision: string, wave: number, by: string): Promise<number> {
    // another pass may have rolled it back meanwhile: once is enough
    if (!(await this.rollouts.appendRollback(project.id, { action: 'rollback', revision, wave, by, at: this.clock.now().toISOString() }))) return 0;
    const all = (await this.targets.forProject(project.id)).filter((t) => !t.removalRequestedAt);
    const ids = new Set(rollbackTargets(wavesOf(project), revision, wave, all.map((t) => waveMember(t, t.cluster?.groupName ?? ''))));
    const moved = all.filter((t) => ids.has(t.id));
    await this.uow.transaction(async (tx) => {
      for (const t of moved) await tx.targets.requestRun(project.id, t.clusterId, { manual: false });
      await this.events.record({ projectId: project.id, clusterName: null, type: 'Warning', reason: 'RolledBack', message: `revision ${revision} rolled back from wave ${wave} by ${by}: ${moved.length} cluster(s) return to the last revision each was Ready and Healthy on`, revision }, tx);
    });
    this.wakeup.wake();
    return moved.length;
  }
}
