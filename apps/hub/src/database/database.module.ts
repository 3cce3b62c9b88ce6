import { Global, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
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
      inject: [HUB_CONFIG],
      useFactory: async (config: HubConfig) => {
        const ds = await openDatabase(databaseTarget(config));
        openGenericPlanPool(ds);
        return ds;
      },
    },
    DatabaseLifecycle,
    DatabaseRepository,
  ],
  exports: [DataSource, DatabaseRepository],
})
export class DatabaseModule {}

