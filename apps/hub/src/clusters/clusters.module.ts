import { Module } from '@nestjs/common';
import { RepositoriesModule } from '../repositories/repositories.module';
import { TargetingModule } from '../targeting/targeting.module';
import { ClustersController } from './clusters.controller';
import { ClustersService } from './clusters.service';

@Module({
  imports: [RepositoriesModule, TargetingModule],
  controllers: [ClustersController],
  providers: [ClustersService],
})
export class ClustersModule {}
