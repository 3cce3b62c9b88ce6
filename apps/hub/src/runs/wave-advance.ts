import { formatRevision } from '@flotilla/engine';
import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { ProjectEntity } from '../database/entities';
import { RunWakeup } from '../notify/run-wakeup';
import { TargetsRepository } from '../repositories/targets.repository';
import { decideRollout, targetsToAdvance } from '../rollout/rollout';
import { waveMember } from '../rollout/run-plan';
import { decideOptions } from '../rollout/rollout-actions';
import { wavesOf } from '../rollout/wave-spec';

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
    const decision = decideRollout(wavesOf(project), revision, members, this.clock.now(), decideOptions(project.rolloutActions, revision));
    const already = new Set(all.filter((t) => t.advanceToRevision === revision).map((t) => t.id));
    // those already told to move are not made due again by every pass
    const advancing = targetsToAdvance(decision, members).filter((id) => !already.has(id));
    if (advancing.length === 0) return 0;
    await this.targets.advanceTo(advancing, revision);
    this.wakeup.wake();
    return advancing.length;
  }
}
