import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiConsumes, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedRequest } from '../auth/auth.guard';
import { TenantRoute } from '../auth/roles';
import { ProjectAccess } from '../tenancy/project-access';
import { auditTenant } from '../tenancy/tenant-scope';
import { ApiErrors } from '../common/openapi-errors';
import type { ServerResponse } from 'node:http';
import { CursorQuery } from '../common/cursor';
import { CreateProjectDto, DeleteProjectQuery, EventQuery, ProjectQuery, ReconcileQuery, TargetQuery } from './projects.dto';
import { UpdateProjectDto } from './project-patch.dto';
import { ProjectsService } from './projects.service';
import { DeletionDto, EventPageDto, ProjectDto, ProjectPageDto, ReconcileRequestedDto, RunPageDto, TargetDto, TargetPageDto } from './projects.views';
import { TargetsService } from './targets.service';
import { eventFor, projectFor, runFor, targetFor } from './viewer-masking';

@ApiTags('projects')
@ApiBearerAuth()
@ApiErrors()
@TenantRoute()
@Controller('api/v1/projects')
export class ProjectsController {
  constructor(
    private readonly projects: ProjectsService,
    private readonly targets: TargetsService,
    private readonly access: ProjectAccess,
  ) {}

  @Post()
  @ApiCreatedResponse({ type: ProjectDto })
  create(@Body() dto: CreateProjectDto, @Req() req: AuthenticatedRequest): Promise<ProjectDto> {
    req.tenant = dto.tenant === undefined ? null : auditTenant(req.principal, dto.tenant);
    return this.projects.create(dto, req.principal);
  }

  @Get()
  @ApiOkResponse({ type: ProjectPageDto })
  async list(@Query() q: ProjectQuery, @Req() req: AuthenticatedRequest): Promise<ProjectPageDto> {
    const page = await this.projects.list(q, req.principal);
    return { ...page, items: page.items.map((p) => projectFor(req.principal, p)) };
  }

  @Get(':name')
  @ApiOkResponse({ type: ProjectDto })
  async get(@Param('name') name: string, @Req() req: AuthenticatedRequest): Promise<ProjectDto> {
    await this.access.require(req, name, 'viewer');
    return projectFor(req.principal, await this.projects.get(name));
  }

  /** A JSON merge patch; spec changes bump `generation`; target changes add and remove Targets. */
  @Patch(':name')
  @ApiOperation({ description: 'A JSON merge patch (RFC 7396): fields left out keep their value, nested objects merge field by field, null removes a field (its default comes back), lists and registryCredentials are replaced whole.' })
  @ApiConsumes('application/merge-patch+json', 'application/json')
  @ApiOkResponse({ type: ProjectDto })
  async update(@Param('name') name: string, @Body() dto: UpdateProjectDto, @Req() req: AuthenticatedRequest): Promise<ProjectDto> {
    await this.access.require(req, name, 'operator');
    return this.projects.update(name, dto);
  }

  /** 200 when gone; 202 while Targets remove the applied instances (`instances=delete`, the default). */
  @Delete(':name')
  @ApiOkResponse({ type: DeletionDto, description: 'deleted' })
  @ApiAcceptedResponse({ type: DeletionDto, description: 'deleting: Targets are removing the applied instances' })
  async delete(@Param('name') name: string, @Query() q: DeleteProjectQuery, @Res({ passthrough: true }) res: ServerResponse, @Req() req: AuthenticatedRequest): Promise<DeletionDto> {
    await this.access.require(req, name, 'operator');
    const result = await this.projects.delete(name, q.instances);
    res.statusCode = result.state === 'deleting' ? 202 : 200;
    return result;
  }

  @Post(':name/reconcile')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: ReconcileRequestedDto })
  async reconcile(@Param('name') name: string, @Query() q: ReconcileQuery, @Req() req: AuthenticatedRequest): Promise<ReconcileRequestedDto> {
    await this.access.require(req, name, 'operator');
    return this.targets.reconcile(name, q.cluster);
  }

  @Post(':name/suspend')
  @HttpCode(200)
  @ApiOkResponse({ type: ProjectDto })
  async suspend(@Param('name') name: string, @Req() req: AuthenticatedRequest): Promise<ProjectDto> {
    await this.access.require(req, name, 'operator');
    return this.projects.suspend(name, true);
  }

  @Post(':name/resume')
  @HttpCode(200)
  @ApiOkResponse({ type: ProjectDto })
  async resume(@Param('name') name: string, @Req() req: AuthenticatedRequest): Promise<ProjectDto> {
    await this.access.require(req, name, 'operator');
    return this.projects.suspend(name, false);
  }

  @Get(':name/targets')
  @ApiOkResponse({ type: TargetPageDto })
  async targetList(@Param('name') name: string, @Query() q: TargetQuery, @Req() req: AuthenticatedRequest): Promise<TargetPageDto> {
    const tenant = await this.access.require(req, name, 'viewer');
    const page = await this.targets.list(name, q);
    return { ...page, items: page.items.map((t) => targetFor(req.principal, tenant, t)) };
  }

  @Get(':name/targets/:cluster')
  @ApiOkResponse({ type: TargetDto })
  async target(@Param('name') name: string, @Param('cluster') cluster: string, @Req() req: AuthenticatedRequest): Promise<TargetDto> {
    const tenant = await this.access.require(req, name, 'viewer');
    return targetFor(req.principal, tenant, await this.targets.get(name, cluster));
  }

  @Get(':name/targets/:cluster/runs')
  @ApiOkResponse({ type: RunPageDto })
  async runs(@Param('name') name: string, @Param('cluster') cluster: string, @Query() q: CursorQuery, @Req() req: AuthenticatedRequest): Promise<RunPageDto> {
    const tenant = await this.access.require(req, name, 'viewer');
    const page = await this.targets.runs(name, cluster, q);
    return { ...page, items: page.items.map((r) => runFor(req.principal, tenant, r)) };
  }

  @Get(':name/events')
  @ApiOkResponse({ type: EventPageDto })
  async events(@Param('name') name: string, @Query() q: EventQuery, @Req() req: AuthenticatedRequest): Promise<EventPageDto> {
    const tenant = await this.access.require(req, name, 'viewer');
    const page = await this.targets.events(name, q);
    return { ...page, items: page.items.map((e) => eventFor(req.principal, tenant, e)) };
  }
}
