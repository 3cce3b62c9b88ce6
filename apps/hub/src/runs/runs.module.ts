import { Global, Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { MetricsModule, MetricsRegistry } from '../metrics/metrics.module';
import { RepositoriesModule } from '../repositories/repositories.module';
import { RunMetrics } from './run-metrics';
import { RunResults } from './run-results';
import { TargetDeletion } from './target-deletion';
import { WaveAdvance } from './wave-advance';
import { WaveAnnouncer } from '../rollout/wave-announcer';
import { RolloutProjectsRepository } from '../rollout/rollout-projects.repository';

/** Where a finished run is recorded, whether the hub ran it (scheduler/) or an agent reported it (agents/). */
@Global()
@Module({
  imports: [RepositoriesModule, EventsModule, MetricsModule],
  providers: [{ provide: RunMetrics, inject: [MetricsRegistry], useFactory: (registry: MetricsRegistry) => new RunMetrics(registry) }, RunResults, TargetDeletion, WaveAdvance, WaveAnnouncer, RolloutProjectsRepository],
  exports: [RunMetrics, RunResults, TargetDeletion, WaveAdvance, WaveAnnouncer, RolloutProjectsRepository],
})
export class RunsModule {}
