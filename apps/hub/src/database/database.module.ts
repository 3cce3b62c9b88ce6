import { Global, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { HUB_LOGGER } from '../logging/logging.module';
import { databaseTarget, openDatabase } from './data-source';
import { DatabaseRepository } from './database.repository';
import { closeGenericPlanPool, openGenericPlanPool } from './generic-plan-pool';

/** Closes the database when the app shuts down. */
@Injectable()
class DatabaseLifecycle implements OnApplicationShutdown {
  constructor(private readonly ds: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    await closeGenericPlanPool(this.ds);
    if (this.ds.isInitialized) await this.ds.destroy();
  }
}

@Global()
@Module({
  providers: [
    {
      provide: DataSource,
      inject: [HUB_CONFIG, HUB_LOGGER],
      useFactory: async (config: HubConfig, logger: Logger) => {
        const ds = await openDatabase(databaseTarget(config));
        await openGenericPlanPool(ds, (reason) =>
          logger.warn({ reason }, 'list reads are planned on every request: sessions with plan_cache_mode=force_generic_plan could not be opened (a connection pooler in between?)'),
        );
        return ds;
      },
    },
    DatabaseLifecycle,
    DatabaseRepository,
  ],
  exports: [DataSource, DatabaseRepository],
})
export class DatabaseModule {}

