import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { EventsModule } from '../events/events.module';
import { RepositoriesModule } from '../repositories/repositories.module';
import { TargetingModule } from '../targeting/targeting.module';
import { AgentDiffs } from '../agents/agent-diffs';
import { AGENT_DIFFER } from './diff/agent-diff';
import { ProjectDiffController } from './diff/project-diff.controller';
import { PROJECT_DIFF_OPTIONS, ProjectDiffService } from './diff/project-diff.service';
import { ProjectsController } from './projects.controller';
import { ProjectsService } from './projects.service';
import { ProjectAccess } from '../tenancy/project-access';
import { TargetsService } from './targets.service';

@Module({
  imports: [RepositoriesModule, EventsModule, TargetingModule, CredentialsModule],
  controllers: [ProjectsController, ProjectDiffController],
  providers: [
    ProjectsService,
    ProjectAccess,
    TargetsService,
    ProjectDiffService,
    // agent clusters' diffs: asked of their agents over the stream
    { provide: AGENT_DIFFER, useExisting: AgentDiffs },
    { provide: PROJECT_DIFF_OPTIONS, useValue: {} },
  ],
})
export class ProjectsModule {}
