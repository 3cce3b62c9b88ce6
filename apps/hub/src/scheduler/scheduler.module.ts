import { type DynamicModule, Module } from '@nestjs/common';
import { MetricsModule, MetricsRegistry } from '../metrics/metrics.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { RepositoriesModule } from '../repositories/repositories.module';
import { LeaseRepository } from './lease.repository';
import { SchedulerMetrics } from './scheduler.metrics';
import { SchedulerRepository } from './scheduler.repository';
import { SchedulerService } from './scheduler.service';
import { SourcePoller } from './source-poller';
import { OciTagResolver, TAG_RESOLVER, type TagResolver } from './tag-resolver';
import { TargetRunService } from './target-run.service';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { defaultEngineRunnerOptions, EngineTargetRunner } from './engine-target-runner';
import { TARGET_RUNNER, type TargetRunner } from './target-runner';

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
      imports: [RepositoriesModule, CredentialsModule, MetricsModule],
      providers: [
        {
          provide: TARGET_RUNNER,
          inject: [HUB_CONFIG],
          useFactory: (config: HubConfig) => options.targetRunner ?? new EngineTargetRunner(defaultEngineRunnerOptions(config.dataDir)),
        },
        { provide: TAG_RESOLVER, useValue: options.tagResolver ?? new OciTagResolver() },
        { provide: SchedulerMetrics, inject: [MetricsRegistry], useFactory: (registry: MetricsRegistry) => new SchedulerMetrics(registry) },
        LeaseRepository,
        SchedulerRepository,
        SourcePoller,
        TargetRunService,
        SchedulerService,
      ],
      exports: [SchedulerService],
    };
  }
}
