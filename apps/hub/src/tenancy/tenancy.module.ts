import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { RepositoriesModule } from '../repositories/repositories.module';
import { TargetingModule } from '../targeting/targeting.module';
import { TenantReaches } from './tenant-reach';
import { TenantsController } from './tenants.controller';
import { TenantsService } from './tenants.service';

@Module({
  imports: [RepositoriesModule, TargetingModule, AuthModule],
  controllers: [TenantsController],
  // one TenantReaches for every module that scopes reads: one kept copy, one listener
  providers: [TenantsService, TenantReaches],
  exports: [TenantReaches],
})
export class TenancyModule {}
