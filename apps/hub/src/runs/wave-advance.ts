import { formatRevision } from '@flotilla/engine';
import { Injectable } from '@nestjs/common';
import type { ProjectEntity } from '../database/entities';
import { RunWakeup } from '../notify/run-wakeup';
import { TargetsRepository } from '../repositories/targets.repository';
import { targetsToAdvance } from '../rollout/rollout';

/**
 * After a Target reports Ready on the Project's revision, a later rollout
 * wave may open: its Targets move to the revision, push and agent alike,
 * by the status they reported.
 */
@Injectable()
export class WaveAdvance {
  constructor(
    private readonly targets: TargetsRepository,
    private readonly wakeup: RunWakeup,
  ) {}

  async afterSuccess(project: ProjectEntity, clusterGroup: string, revision: string): Promise<void> {
    if (project.rolloutGroups.length === 0 || project.sourceDigest === null || revision !== formatRevision(project.sourceTag, project.sourceDigest)) return;
    const all = (await this.targets.forProject(project.id)).filter((t) => !t.removalRequestedAt);
    const members = all.map((t) => ({ id: t.id, group: t.cluster?.groupName ?? '', phase: t.phase, lastAppliedRevision: t.lastAppliedRevision }));
    const advancing = targetsToAdvance(project.rolloutGroups, revision, members, clusterGroup);
    if (advancing.length === 0) return;
    await this.targets.advanceTo(advancing, revision);
    this.wakeup.wake();
  }
}
