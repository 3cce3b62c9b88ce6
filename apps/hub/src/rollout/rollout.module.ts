import { Module } from '@nestjs/common';
import { RepositoriesModule } from '../repositories/repositories.module';
import { ProjectAccess } from '../tenancy/project-access';
import { RolloutController } from './rollout.controller';
import { RolloutService } from './rollout.service';

/** The rollout of a Project, seen and acted on through the API. */
@Module({
  imports: [RepositoriesModule],
  controllers: [RolloutController],
  providers: [RolloutService, ProjectAccess],
})
export class RolloutModule {}
