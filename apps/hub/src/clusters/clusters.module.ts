import { Module } from '@nestjs/common';
import { RepositoriesModule } from '../repositories/repositories.module';
import { TargetingModule } from '../targeting/targeting.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { ClusterCheckLoop } from './cluster-check-loop';
import { ClustersController } from './clusters.controller';
import { ClustersService } from './clusters.service';

@Module({
  imports: [RepositoriesModule, TargetingModule, TenancyModule],
  controllers: [ClustersController],
  providers: [ClustersService, ClusterCheckLoop],
})
export class ClustersModule {}
