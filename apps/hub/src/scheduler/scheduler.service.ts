import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { HUB_LOGGER } from '../logging/logging.module';
import { LeaseRepository } from './lease.repository';
import { SchedulerMetrics } from './scheduler.metrics';
import { SourcePoller } from './source-poller';
import { type RunEnd, TargetRunService } from './target-run.service';
import { TARGET_RUNNER, type TargetRunner } from './target-runner';

/**
 * The loop that makes Projects converge: each tick polls due sources, then
 * claims as many due Targets as it has free run slots and runs them. Started
 * at boot unless disabled; at shutdown it stops claiming, lets runs finish
 * within the grace period, then aborts the rest (their leases are released).
 */
@Injectable()
export class SchedulerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private ticking: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<RunEnd>>();
  private readonly shutdown = new AbortController();

  constructor(
    private readonly leases: LeaseRepository,
    private readonly poller: SourcePoller,
    private readonly runs: TargetRunService,
    private readonly metrics: SchedulerMetrics,
    @Inject(TARGET_RUNNER) private readonly runner: TargetRunner,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {
    // every run in flight listens for shutdown
    setMaxListeners(0, this.shutdown.signal);
  }

  get owner(): string {
    return this.config.scheduler.hubId;
  }

  onApplicationBootstrap(): void {
    if (!this.config.scheduler.enabled) return;
    this.logger.info({ hubId: this.owner, tickMs: this.config.scheduler.tickMs, concurrency: this.config.scheduler.concurrency }, 'scheduler started');
    this.schedule(0);
  }

  /** One pass: poll sources, claim, start runs (not awaited). Safe to call by hand in tests. */
  tick(): Promise<void> {
    this.ticking ??= this.doTick().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  /** Resolves once every run started so far has ended. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.ticking?.catch(() => undefined);
    await this.stopRuns();
    await this.runner.close?.();
  }

  private async stopRuns(): Promise<void> {
    if (this.inFlight.size === 0) return;
    const grace = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), this.config.scheduler.shutdownGraceMs).unref());
    if ((await Promise.race([this.drain().then(() => 'done' as const), grace])) === 'timeout') {
      this.logger.warn({ runs: this.inFlight.size }, 'aborting runs still going at shutdown; their leases are released');
      this.shutdown.abort(new Error('the hub is shutting down'));
      await this.drain();
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    clearTimeout(this.timer); // one pending tick at most
    this.timer = setTimeout(() => {
      this.tick()
        .catch((err: unknown) => this.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'scheduler tick failed'))
        .finally(() => this.schedule(this.config.scheduler.tickMs));
    }, delayMs);
  }

  private async doTick(): Promise<void> {
    if (this.stopping) return;
    await this.poller.poll();
    this.metrics.queueDepth.set(await this.leases.queueDepth());
    const free = this.config.scheduler.concurrency - this.inFlight.size;
    if (this.stopping || free <= 0) return;
    const claimed = await this.leases.claim(this.owner, free, this.config.scheduler.leaseTtlMs);
    for (const claim of claimed) {
      const run: Promise<RunEnd> = this.runs
        .run(claim, this.shutdown.signal)
        .catch((err: unknown) => {
          this.logger.error({ target: claim.targetId, err: err instanceof Error ? err.message : String(err) }, 'target run failed unexpectedly');
          return 'failed' as const;
        })
        .finally(() => {
          this.inFlight.delete(run);
          this.metrics.runsInFlight.set(this.inFlight.size);
          // a slot came free: look for more work without waiting a whole tick
          if (!this.stopping && this.config.scheduler.enabled) this.schedule(0);
        });
      this.inFlight.add(run);
    }
    this.metrics.runsInFlight.set(this.inFlight.size);
  }
}
