import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { RepositoriesModule } from '../repositories/repositories.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { FleetController } from './fleet.controller';
import { FleetService } from './fleet.service';
import { FleetStream } from './fleet-stream';
import { SessionController } from './session.controller';

/** The status page's aggregate reads and its live stream. */
@Module({
  imports: [RepositoriesModule, AuthModule, TenancyModule],
  controllers: [FleetController, SessionController],
  providers: [FleetService, FleetStream],
  exports: [FleetStream],
})
export class FleetModule {}
