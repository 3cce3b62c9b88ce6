import { Module } from '@nestjs/common';
import { MetricsModule, MetricsRegistry } from '../metrics/metrics.module';
import { RepositoriesModule } from '../repositories/repositories.module';
import { EventsMetrics } from './events.metrics';
import { EventsService } from './events.service';
import { DeliveryWakeup } from '../cdevents/delivery-wakeup';
import { OutboxWriter } from '../cdevents/outbox-writer';

/** EventsService, for every module that emits events (projects, clusters, targeting, the scheduler). */
@Module({
  imports: [RepositoriesModule, MetricsModule],
  providers: [{ provide: EventsMetrics, inject: [MetricsRegistry], useFactory: (registry: MetricsRegistry) => new EventsMetrics(registry) }, EventsService, OutboxWriter, DeliveryWakeup],
  exports: [EventsService, DeliveryWakeup],
})
export class EventsModule {}
