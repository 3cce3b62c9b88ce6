import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { RepositoriesModule } from '../repositories/repositories.module';
import { TargetingModule } from '../targeting/targeting.module';
import { ProjectsController } from './projects.controller';
import { ProjectsService } from './projects.service';
import { TargetsService } from './targets.service';

@Module({
  imports: [RepositoriesModule, EventsModule, TargetingModule],
  controllers: [ProjectsController],
  providers: [ProjectsService, TargetsService],
})
export class ProjectsModule {}
