import { TenantReaches } from '../tenancy/tenant-reach';
import { Module } from '@nestjs/common';
import { RepositoriesModule } from '../repositories/repositories.module';
import { TargetingModule } from '../targeting/targeting.module';
import { ClusterCheckLoop } from './cluster-check-loop';
import { ClustersController } from './clusters.controller';
import { ClustersService } from './clusters.service';

@Module({
  imports: [RepositoriesModule, TargetingModule],
  controllers: [ClustersController],
  providers: [TenantReaches, ClustersService, ClusterCheckLoop],
})
export class ClustersModule {}
