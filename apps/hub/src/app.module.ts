import { type DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { AuditModule } from './audit/audit.module';
import { ANNOUNCE, type Announce, AuthModule, INTERACTIVE } from './auth/auth.module';
import { CdeventsModule } from './cdevents/cdevents.module';
import { AgentsModule } from './agents/agents.module';
import { NotifyModule } from './notify/notify.module';
import { RunsModule } from './runs/runs.module';
import { ClustersModule } from './clusters/clusters.module';
import type { Clock } from './common/clock';
import { ClockModule } from './common/clock.module';
import { ConfigModule } from './config/config.module';
import { EgressModule } from './egress/egress.module';
import { CredentialsModule } from './credentials/credentials.module';
import type { HubConfig } from './config/hub-config';
import { CryptoModule } from './crypto/crypto.module';
import { DatabaseModule } from './database/database.module';
import { FleetModule } from './fleet/fleet.module';
import { HealthController } from './health/health.controller';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { ProjectsModule } from './projects/projects.module';
import { RolloutModule } from './rollout/rollout.module';
import { TenancyModule } from './tenancy/tenancy.module';
import { SchedulerModule, type SchedulerModuleOptions } from './scheduler/scheduler.module';

export interface AppModuleOptions {
  config: HubConfig;
  logger: Logger;
  announce: Announce;
  /** a person watches the output: secrets may be announced */
  interactive: boolean;
  /** the scheduler's ports (engine, tag resolver); defaults in SchedulerModule */
  scheduler?: SchedulerModuleOptions;
  /** where services take the time; default the system clock */
  clock?: Clock;
}

@Module({})
export class AppModule {
  static forRoot({ config, logger, announce, interactive, scheduler, clock }: AppModuleOptions): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(logger),
        ClockModule.forRoot(clock),
        EgressModule,
        DatabaseModule,
        NotifyModule,
        CryptoModule,
        MetricsModule,
        AuthModule,
        AuditModule,
        TenancyModule,
        CredentialsModule,
        RunsModule,
        AgentsModule,
        ClustersModule,
        ProjectsModule,
        RolloutModule,
        FleetModule,
        SchedulerModule.forRoot(scheduler),
        CdeventsModule,
      ],
      controllers: [HealthController],
      providers: [
        { provide: ANNOUNCE, useValue: announce },
        { provide: INTERACTIVE, useValue: interactive },
      ],
      exports: [ANNOUNCE, INTERACTIVE],
    };
  }
}
