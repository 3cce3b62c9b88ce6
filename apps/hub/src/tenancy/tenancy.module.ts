import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { RepositoriesModule } from '../repositories/repositories.module';
import { TargetingModule } from '../targeting/targeting.module';
import { TenantsController } from './tenants.controller';
import { TenantsService } from './tenants.service';

@Module({
  imports: [RepositoriesModule, TargetingModule, AuthModule],
  controllers: [TenantsController],
  providers: [TenantsService],
})
export class TenancyModule {}
