import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedRequest } from '../auth/auth.guard';
import { TenantRoute } from '../auth/roles';
import { ApiErrors } from '../common/openapi-errors';
import { ProjectAccess } from '../tenancy/project-access';
import { RolloutService } from './rollout.service';
import { ApproveWaveDto, RolloutViewStateDto } from './rollout.views';

@ApiTags('projects')
@ApiBearerAuth()
@ApiErrors()
@TenantRoute()
@Controller('api/v1/projects')
export class RolloutController {
  constructor(
    private readonly rollouts: RolloutService,
    private readonly access: ProjectAccess,
  ) {}

  /** The rollout of the Project's current revision, wave by wave. */
  @Get(':name/rollout')
  @ApiOkResponse({ type: RolloutViewStateDto })
  async get(@Param('name') name: string, @Req() req: AuthenticatedRequest): Promise<RolloutViewStateDto> {
    await this.access.require(req, name, 'viewer');
    return this.rollouts.view(name);
  }

  @Post(':name/rollout/approve')
  @HttpCode(200)
  @ApiOperation({ description: 'Approves a wave that needs approval (`approval: true`) for the current revision; recorded with who and when. 409 when no such wave awaits approval.' })
  @ApiOkResponse({ type: RolloutViewStateDto })
  async approve(@Param('name') name: string, @Body() dto: ApproveWaveDto, @Req() req: AuthenticatedRequest): Promise<RolloutViewStateDto> {
    await this.access.require(req, name, 'operator');
    return this.rollouts.approve(name, dto.wave, req.principal);
  }

  @Post(':name/rollout/hold')
  @HttpCode(200)
  @ApiOperation({ description: 'Holds the rollout: clusters on the revision stay, no other starts it and no wave opens, until a retry.' })
  @ApiOkResponse({ type: RolloutViewStateDto })
  async hold(@Param('name') name: string, @Req() req: AuthenticatedRequest): Promise<RolloutViewStateDto> {
    await this.access.require(req, name, 'operator');
    return this.rollouts.hold(name, req.principal);
  }

  @Post(':name/rollout/rollback')
  @HttpCode(200)
  @ApiOperation({ description: 'Rolls the current revision back from the wave that failed (else the last wave it reached): those clusters return to the last revision each was Ready and Healthy on, pinned by digest, until a retry or a new revision. 409 when already rolled back or nothing took it yet.' })
  @ApiOkResponse({ type: RolloutViewStateDto })
  async rollback(@Param('name') name: string, @Req() req: AuthenticatedRequest): Promise<RolloutViewStateDto> {
    await this.access.require(req, name, 'operator');
    return this.rollouts.rollback(name, req.principal);
  }

  @Post(':name/rollout/retry')
  @HttpCode(200)
  @ApiOperation({ description: 'Lifts a hold and a rollback of the current revision, and runs the clusters that failed on it again now.' })
  @ApiOkResponse({ type: RolloutViewStateDto })
  async retry(@Param('name') name: string, @Req() req: AuthenticatedRequest): Promise<RolloutViewStateDto> {
    await this.access.require(req, name, 'operator');
    return this.rollouts.retry(name, req.principal);
  }
}
