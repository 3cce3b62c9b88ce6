import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { HUB_LOGGER } from '../logging/logging.module';
import { RunWakeup } from '../notify/run-wakeup';
import { SourcePoller } from './sources/source-poller';

/** How long a manual reconcile waits for its tag resolution. */
const RESOLVE_WAIT_MS = 10_000;

/**
 * What services call once a change that should start runs has committed, so
 * the run starts now instead of at the next scheduler tick or source poll.
 */
@Injectable()
export class RunTriggers {
  constructor(
    private readonly poller: SourcePoller,
    private readonly wakeup: RunWakeup,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  /** Targets were made due (manual reconcile, resume, deletion, a new spec). */
  runsDue(): void {
    this.wakeup.wake();
  }

  /**
   * The tag must be resolved before the run (a manual reconcile after the
   * tag moved must not apply the old digest): resolves it now and records
   * the digest or the error. Waits at most `waitMs` so a stuck registry does
   * not hold the request; the resolution goes on, and a new digest it finds
   * still makes the Targets run.
   */
  async resolveTag(projectId: string, waitMs = RESOLVE_WAIT_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const resolution = this.poller.resolveNow(projectId).catch((err: unknown) => this.failed(err));
    await Promise.race([resolution, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }

  /**
   * A new Project or a new source: resolve its tag now, in the background,
   * rather than at the next poll (the new digest wakes the scheduler). Only
   * while the scheduler loop runs; tests that drive polls by hand keep them.
   */
  sourceChanged(projectId: string): void {
    if (!this.config.scheduler.enabled) return;
    this.poller.resolveNow(projectId).catch((err: unknown) => this.failed(err));
  }

  private failed(err: unknown): void {
    this.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'tag resolution on a trigger failed');
  }
}
