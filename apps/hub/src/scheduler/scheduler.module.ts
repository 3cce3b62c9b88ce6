import { type DynamicModule, Module } from '@nestjs/common';
import { MetricsModule, MetricsRegistry } from '../metrics/metrics.module';
import { InventoryModule } from '../targeting/inventory.module';
import { LeaseRepository } from './lease.repository';
import { SchedulerMetrics } from './scheduler.metrics';
import { SchedulerRepository } from './scheduler.repository';
import { SchedulerService } from './scheduler.service';
import { SourcePoller } from './source-poller';
import { OciTagResolver, TAG_RESOLVER, type TagResolver } from './tag-resolver';
import { TargetRunService } from './target-run.service';
import { TARGET_RUNNER, type TargetRunner, UnavailableTargetRunner } from './target-runner';

export interface SchedulerModuleOptions {
  /** runs Targets; default: none wired (every run stalls with EngineUnavailable) until libs/engine is */
  targetRunner?: TargetRunner;
  /** resolves tags; default: libs/oci against the registry */
  tagResolver?: TagResolver;
}

@Module({})
export class SchedulerModule {
  static forRoot(options: SchedulerModuleOptions = {}): DynamicModule {
    return {
      module: SchedulerModule,
      imports: [InventoryModule, MetricsModule],
      providers: [
        { provide: TARGET_RUNNER, useValue: options.targetRunner ?? new UnavailableTargetRunner() },
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
