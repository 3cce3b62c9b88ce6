import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { HUB_LOGGER } from '../logging/logging.module';
import { ClustersService } from './clusters.service';

/** Clusters checked per pass; the rest wait for the next one. */
const CHECKS_PER_PASS = 32;

/**
 * Checks every push cluster's API server about once per
 * `clusterCheckMs` (reachability, version, `lastChecked`), not only at
 * registration. Runs with the scheduler (replicas with it off, and tests,
 * call `ClustersService.checkDue` themselves); a pass every half interval
 * claims the clusters that are due, so each replica shares the work.
 */
@Injectable()
export class ClusterCheckLoop implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<unknown> | undefined;
  private stopping = false;

  constructor(
    private readonly clusters: ClustersService,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.scheduler.enabled) this.next();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.pass;
  }

  private next(): void {
    if (this.stopping) return;
    const every = this.config.scheduler.clusterCheckMs;
    this.timer = setTimeout(() => {
      this.pass = this.clusters
        .checkDue(every, CHECKS_PER_PASS)
        .catch((err: unknown) => this.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'cluster checks failed'))
        .finally(() => this.next());
    }, every / 2);
  }
}
