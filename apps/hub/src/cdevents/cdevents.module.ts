import { ProjectAccess } from '../tenancy/project-access';
import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { MetricsModule, MetricsRegistry } from '../metrics/metrics.module';
import { RepositoriesModule } from '../repositories/repositories.module';
import { CdeventsMetrics } from './cdevents.metrics';
import { DeliveriesController } from './deliveries.controller';
import { CdeventsDelivery } from './delivery.service';
import { CdeventsReceiverService } from './receiver.service';

/** CDEvents: the receiver on its own port, the delivery of the outbox, and the deliveries route. The outbox itself is written by EventsService. */
@Module({
  imports: [RepositoriesModule, MetricsModule, EventsModule],
  controllers: [DeliveriesController],
  providers: [{ provide: CdeventsMetrics, inject: [MetricsRegistry], useFactory: (registry: MetricsRegistry) => new CdeventsMetrics(registry) }, CdeventsDelivery, CdeventsReceiverService, ProjectAccess],
  exports: [CdeventsDelivery],
})
export class CdeventsModule {}
