import { Injectable } from '@nestjs/common';
import type { ProjectEntity } from '../database/entities';
import { EventsService } from '../events/events.service';
import { UnitOfWork } from '../repositories/unit-of-work';
import type { RolloutDecision } from './rollout';
import { waveEvent } from './wave-event';
import { sameWaves, waveTransitions } from './wave-transitions';

/**
 * Tells each rollout wave's change of state once. Whoever decides a rollout
 * (a report's wave advance, the rollout pass, the poller that found a new
 * revision) hands its decision here before acting on it.
 */
@Injectable()
export class WaveAnnouncer {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventsService,
  ) {}

  /**
   * The events and the new states commit together, and only if the states
   * stored are still those `project` was read with: another pass or replica
   * that saw the same change first told it; one that saw less is caught up
   * by the next decision. No change, no write.
   */
  async announce(project: ProjectEntity, revision: string, decision: RolloutDecision): Promise<void> {
    const announced = project.rolloutWaveStates;
    const { next, transitions } = waveTransitions(announced, revision, decision.waves);
    if (sameWaves(announced, next)) return;
    const won = await this.uow.transaction(async (tx) => {
      if (!(await tx.projects.announceWaves(project.id, announced, next))) return false;
      await this.events.recordAll(transitions.map((t) => waveEvent(project.id, t)), tx);
      return true;
    });
    if (won) project.rolloutWaveStates = next;
  }
}
