import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { Clock } from '../common/clock';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { HUB_LOGGER } from '../logging/logging.module';
import { WaveAdvance } from '../runs/wave-advance';
import { RolloutProjectsRepository } from './rollout-projects.repository';

/** Projects looked at per pass; the rest wait for the next. */
const PASS_LIMIT = 500;

/**
 * A wave whose soak ended, or a Target past its progress deadline, changes
 * the rollout with no report to say so: this pass looks at the Projects
 * whose rollout is under way, at most once per scheduler tick, and moves the
 * Targets whose turn came. Results still advance waves at once (WaveAdvance).
 */
@Injectable()
export class RolloutPass {
  private running: Promise<void> | undefined;
  private lastStartedMs = -Infinity;

  constructor(
    private readonly projects: RolloutProjectsRepository,
    private readonly waves: WaveAdvance,
    private readonly clock: Clock,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  /** Starts a pass unless one runs or one started less than a tick ago (by the wall clock: the pass's own pace). */
  kick(): void {
    const now = Date.now();
    if (this.running || now - this.lastStartedMs < this.config.scheduler.tickMs) return;
    this.lastStartedMs = now;
    this.running = this.pass()
      .then(() => undefined)
      .catch((err: unknown) => this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'rollout pass failed; the next tick tries again'))
      .finally(() => (this.running = undefined));
  }

  /** One pass over the rollouts under way; returns how many Targets moved. */
  async pass(): Promise<number> {
    let moved = 0;
    for (const project of await this.projects.inProgress(PASS_LIMIT)) moved += await this.waves.advance(project);
    if (moved > 0) this.logger.debug({ moved, at: this.clock.now().toISOString() }, 'rollout pass moved Targets');
    return moved;
  }

  /** Resolves when the pass under way (if any) ended. */
  async idle(): Promise<void> {
    await this.running;
  }
}
