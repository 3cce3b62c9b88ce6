import { type DynamicModule, Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { MetricsModule, MetricsRegistry } from '../metrics/metrics.module';
import { RepositoriesModule } from '../repositories/repositories.module';
import { EventsModule } from '../events/events.module';
import { HUB_CONFIG } from '../config/config.module';
import { HubEgress } from '../egress/egress.module';
import type { HubConfig } from '../config/hub-config';
import { HUB_LOGGER } from '../logging/logging.module';
import type { Logger } from 'pino';
import { ClusterEventSink } from './cluster-event-sink';
import { openKubeConnection } from './push-connection';
import { PushConnections } from './push-connections';
import { defaultEngineRunnerOptions, EngineTargetRunner } from './engine-adapter';
import { BatchedRunWrites } from './batched-run-writes';
import { LeaseBatchRepository } from './lease-batch.repository';
import { LeaseRepository } from './lease.repository';
import { SchedulerMetrics } from './scheduler.metrics';
import { RunTriggers } from './run-triggers';
import { SchedulerService } from './scheduler.service';
import { SourcePoller } from './sources/source-poller';
import { SourcesRepository } from './sources/sources.repository';
import { OciTagResolver, TAG_RESOLVER, type TagResolver } from './sources/tag-resolver';
import { TargetRunService } from './target-run.service';
import { TARGET_RUNNER, type TargetRunner } from './target-runner';
import { RolloutPass } from '../rollout/rollout-pass';

export interface SchedulerModuleOptions {
  /** runs Targets; default: libs/engine (the CUE engine starts at the first run) */
  targetRunner?: TargetRunner;
  /** resolves tags; default: libs/oci against the registry */
  tagResolver?: TagResolver;
}

@Module({})
export class SchedulerModule {
  static forRoot(options: SchedulerModuleOptions = {}): DynamicModule {
    return {
      module: SchedulerModule,
      // services of other modules (Projects) fire triggers
      global: true,
      imports: [RepositoriesModule, CredentialsModule, MetricsModule, EventsModule],
      providers: [
        {
          provide: TARGET_RUNNER,
          inject: [HUB_CONFIG, HUB_LOGGER, HubEgress],
          // push clusters' Targets run on the engine (or the runner a test passes); agents run their own
          useFactory: (config: HubConfig, logger: Logger, egress: HubEgress) =>
            options.targetRunner ?? new EngineTargetRunner(defaultEngineRunnerOptions(config.dataDir, egress.policy, egress.fetch, config.cue), undefined, logger),
        },
        { provide: TAG_RESOLVER, inject: [HubEgress], useFactory: (egress: HubEgress) => options.tagResolver ?? new OciTagResolver({ responseTimeoutMs: 30_000, fetch: egress.fetch }) },
        { provide: SchedulerMetrics, inject: [MetricsRegistry], useFactory: (registry: MetricsRegistry) => new SchedulerMetrics(registry) },
        {
          provide: PushConnections,
          inject: [HubEgress, SchedulerMetrics],
          useFactory: (egress: HubEgress, metrics: SchedulerMetrics) => new PushConnections((c) => openKubeConnection(c, egress.policy, (e) => metrics.observeKubeRequest(e))),
        },
        LeaseRepository,
        LeaseBatchRepository,
        BatchedRunWrites,
        ClusterEventSink,
        SourcesRepository,
        SourcePoller,
        TargetRunService,
        SchedulerService,
        RunTriggers,
        RolloutPass,
      ],
      exports: [SchedulerService, RunTriggers, TARGET_RUNNER, LeaseRepository, RolloutPass],
    };
  }
}
