import { Module } from '@nestjs/common';
import { MetricsModule } from '../metrics/metrics.module';
import { RepositoriesModule } from '../repositories/repositories.module';
import { AuditController } from './audit.controller';
import { AuditRecorder } from './audit-recorder';
import { AuditRetention } from './audit-retention';
import { AuditService } from './audit.service';

/** The audit log: recording (the trail middleware hands entries to AuditRecorder), retention, and its read route. */
@Module({
  imports: [RepositoriesModule, MetricsModule],
  controllers: [AuditController],
  providers: [AuditRecorder, AuditRetention, AuditService],
  exports: [AuditRecorder, AuditRetention],
})
export class AuditModule {}
