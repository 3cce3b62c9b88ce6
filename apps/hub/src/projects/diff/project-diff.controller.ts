import { Body, Controller, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { AuthenticatedRequest } from '../../auth/auth.guard';
import { ProjectAccess } from '../../tenancy/project-access';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../common/openapi-errors';
import { RequiresRole, TenantRoute } from '../../auth/roles';
import { ProjectDiffDto, ProjectDiffQuery, ProjectDiffRequestDto } from './project-diff.dto';
import { ProjectDiffService } from './project-diff.service';

@ApiTags('projects')
@ApiBearerAuth()
@ApiErrors()
@TenantRoute()
@Controller('api/v1/projects')
export class ProjectDiffController {
  constructor(
    private readonly diffs: ProjectDiffService,
    private readonly access: ProjectAccess,
  ) {}

  @Post(':name/diff')
  @HttpCode(200)
  @RequiresRole('operator')
  @ApiOperation({
    description:
      "What a reconcile would change on each Target (or the one on `cluster`, or those in `group`), by server-side dry run; nothing is applied. The artifact is the Project's tag, another `tag`, a `digest`, or an uploaded `artifact`; without a body, the Project's own tag. Agent-mode clusters are reported as skipped, with why.",
  })
  @ApiOkResponse({ type: ProjectDiffDto })
  async diff(@Param('name') name: string, @Query() q: ProjectDiffQuery, @Body() dto: ProjectDiffRequestDto, @Req() req: AuthenticatedRequest): Promise<ProjectDiffDto> {
    await this.access.require(req, name, 'operator');
    return this.diffs.diff(name, dto, q);
  }
}
