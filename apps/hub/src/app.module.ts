import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module';
import type { HubConfig } from './config/hub-config';
import { DatabaseModule } from './database/database.module';
import { HealthController } from './health/health.controller';
import { MetricsModule } from './metrics/metrics.module';

@Module({})
export class AppModule {
  static forRoot(config: HubConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, MetricsModule],
      controllers: [HealthController],
    };
  }
}
