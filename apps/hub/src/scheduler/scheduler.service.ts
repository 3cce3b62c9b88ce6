import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { HUB_LOGGER } from '../logging/logging.module';
import { LeaseKeeper } from './lease-keeper';
import { BatchedRunWrites } from './batched-run-writes';
import { type ClaimedTarget, LeaseRepository } from './lease.repository';
import { RunWakeup } from '../notify/run-wakeup';
import { SchedulerMetrics } from './scheduler.metrics';
import { SourcePoller } from './sources/source-poller';
import { type RunEnd, type RunFacts, TargetRunService } from './target-run.service';
import { TARGET_RUNNER, type TargetRunner } from './target-runner';
import { RolloutPass } from '../rollout/rollout-pass';

/**
 * The loop that makes push clusters' Projects converge (an agent cluster's
 * agent is the clock of its own Targets): each tick kicks off a source poll
 * (which runs beside it), then claims as many due Targets as it has free run
 * slots and runs them. Started at boot unless disabled; at shutdown it stops
 * claiming, lets runs finish for most of the grace period, then aborts the
 * rest (their leases are released), and returns within the grace whatever
 * a run or a dependency does.
 */
@Injectable()
export class SchedulerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private ticking: Promise<void> | undefined;
  /** runs in flight, by Target id */
  private readonly inFlight = new Map<string, Promise<RunEnd>>();
  private readonly shutdown = new AbortController();
  /** a trigger arrived while a tick was running: that tick may have claimed before it committed, so tick again */
  private woken = false;
  /** ticks that ran to the end: tests wait for them to prove a due Target was passed over */
  completedTicks = 0;

  constructor(
    private readonly leases: LeaseRepository,
    private readonly poller: SourcePoller,
    private readonly runs: TargetRunService,
    private readonly metrics: SchedulerMetrics,
    @Inject(TARGET_RUNNER) private readonly runner: TargetRunner,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
    wakeup: RunWakeup,
    private readonly batched: BatchedRunWrites,
    private readonly rollouts: RolloutPass,
  ) {
    wakeup.onWake(() => this.wake());
  }

  /** A trigger committed: claim now rather than at the next tick (when the loop runs). */
  wake(): void {
    if (!this.config.scheduler.enabled || this.stopping) return;
    this.woken = true;
    if (!this.ticking) this.schedule(0);
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
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    const grace = this.config.scheduler.shutdownGraceMs;
    const deadline = Date.now() + grace;
    const ended = await within(deadline, Promise.all([this.ticking?.catch(() => undefined), this.poller.stop(), this.stopRuns(deadline - Math.min(5000, grace / 2))]));
    if (!ended) this.logger.warn({ runs: [...this.inFlight.keys()] }, 'shutdown grace ran out with runs still unwinding; their leases expire and another replica takes them over');
    else await this.runner.close?.();
  }

  /** Lets runs finish until `abortAt`, then aborts the rest and waits for them to unwind. */
  private async stopRuns(abortAt: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    if (!(await within(abortAt, this.drain()))) {
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
        .finally(() => this.schedule(this.woken ? 0 : this.config.scheduler.tickMs));
    }, delayMs);
  }

  private async doTick(): Promise<void> {
    if (this.stopping) return;
    this.woken = false;
    this.poller.kick();
    this.rollouts.kick();
    this.metrics.queueDepth.set(await this.leases.queueDepth());
    const free = this.config.scheduler.concurrency - this.inFlight.size;
    if (!this.stopping && free > 0) {
      const claimed = await this.leases.claim(this.owner, free, this.config.scheduler.leaseTtlMs, [...this.inFlight.keys()]);
      this.metrics.claims.inc({ by: 'tick' }, claimed.length);
      await this.startClaimed(claimed);
    }
    this.metrics.runsInFlight.set(this.inFlight.size);
    this.tickDone();
  }

  /** Starts the runs of a claim, renewed from the claim on (in batches), with their facts read at once. */
  private async startClaimed(claimed: readonly ClaimedTarget[]): Promise<void> {
    const ttl = this.config.scheduler.leaseTtlMs;
    const keepers = claimed.map((claim) => new LeaseKeeper(this.batched, claim, ttl, this.renewalFailed(claim)));
    const facts = await this.factsOf(claimed);
    claimed.forEach((claim, i) => this.start(claim, keepers[i], facts ? (facts.get(claim.targetId) ?? null) : undefined));
  }

  /** The claimed Targets' facts in a few reads for the whole claim; if those fail, each run reads its own. */
  private async factsOf(claimed: readonly ClaimedTarget[]): Promise<Map<string, RunFacts> | undefined> {
    if (claimed.length === 0) return new Map();
    return this.runs.readFacts(claimed.map((c) => c.targetId)).catch((err: unknown) => {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'reading claimed Targets failed; each run reads its own');
      return undefined;
    });
  }

  private renewalFailed(claim: ClaimedTarget): (err: unknown) => void {
    return (err) => this.logger.warn({ target: claim.targetId, err: String(err) }, 'lease renewal failed');
  }

  /** Runs a claimed Target; its lease is renewed by `keeper` from the claim on, so nothing before the run starts can let it lapse. */
  private start(claim: ClaimedTarget, keeper: LeaseKeeper, facts?: RunFacts | null): void {
    const run: Promise<RunEnd> = this.runs
      .run(claim, keeper, this.shutdown.signal, facts)
      .catch((err: unknown) => {
        this.logger.error({ target: claim.targetId, err: err instanceof Error ? err.message : String(err) }, 'target run failed unexpectedly');
        return 'failed' as const;
      })
      .finally(async () => {
        await keeper.stop();
        this.inFlight.delete(claim.targetId);
        this.metrics.runsInFlight.set(this.inFlight.size);
        // a slot came free: look for more work without waiting a whole tick
        if (!this.stopping && this.config.scheduler.enabled) this.schedule(0);
      });
    this.inFlight.set(claim.targetId, run);
  }

  private tickDone(): void {
    this.completedTicks++;
    this.metrics.ticks.inc();
  }
}

/** True when `work` settled before `deadline` (epoch ms); false when time ran out first. */
async function within(deadline: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([work.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
