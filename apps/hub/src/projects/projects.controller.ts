import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { ServerResponse } from 'node:http';
import { PageQuery } from '../common/paging';
import { CreateProjectDto, DeleteProjectQuery, EventQuery, ProjectQuery, ReconcileQuery, TargetQuery, UpdateProjectDto } from './projects.dto';
import { ProjectsService } from './projects.service';
import { DeletionDto, EventPageDto, ProjectDto, ProjectPageDto, ReconcileRequestedDto, RunPageDto, TargetDto, TargetPageDto } from './projects.views';
import { TargetsService } from './targets.service';

@ApiTags('projects')
@ApiBearerAuth()
@Controller('api/v1/projects')
export class ProjectsController {
  constructor(
    private readonly projects: ProjectsService,
    private readonly targets: TargetsService,
  ) {}

  @Post()
  create(@Body() dto: CreateProjectDto): Promise<ProjectDto> {
    return this.projects.create(dto);
  }

  @Get()
  list(@Query() q: ProjectQuery): Promise<ProjectPageDto> {
    return this.projects.list(q);
  }

  @Get(':name')
  get(@Param('name') name: string): Promise<ProjectDto> {
    return this.projects.get(name);
  }

  /** Spec changes bump `generation`; target changes add and remove Targets. */
  @Patch(':name')
  update(@Param('name') name: string, @Body() dto: UpdateProjectDto): Promise<ProjectDto> {
    return this.projects.update(name, dto);
  }

  /** 200 when gone; 202 while Targets remove the applied instances (`instances=delete`, the default). */
  @Delete(':name')
  async delete(@Param('name') name: string, @Query() q: DeleteProjectQuery, @Res({ passthrough: true }) res: ServerResponse): Promise<DeletionDto> {
    const result = await this.projects.delete(name, q.instances);
    res.statusCode = result.state === 'deleting' ? 202 : 200;
    return result;
  }

  @Post(':name/reconcile')
  @HttpCode(202)
  reconcile(@Param('name') name: string, @Query() q: ReconcileQuery): Promise<ReconcileRequestedDto> {
    return this.targets.reconcile(name, q.cluster);
  }

  @Post(':name/suspend')
  @HttpCode(200)
  suspend(@Param('name') name: string): Promise<ProjectDto> {
    return this.projects.suspend(name, true);
  }

  @Post(':name/resume')
  @HttpCode(200)
  resume(@Param('name') name: string): Promise<ProjectDto> {
    return this.projects.suspend(name, false);
  }

  @Get(':name/targets')
  targetList(@Param('name') name: string, @Query() q: TargetQuery): Promise<TargetPageDto> {
    return this.targets.list(name, q);
  }

  @Get(':name/targets/:cluster')
  target(@Param('name') name: string, @Param('cluster') cluster: string): Promise<TargetDto> {
    return this.targets.get(name, cluster);
  }

  @Get(':name/targets/:cluster/runs')
  runs(@Param('name') name: string, @Param('cluster') cluster: string, @Query() q: PageQuery): Promise<RunPageDto> {
    return this.targets.runs(name, cluster, q);
  }

  @Get(':name/events')
  events(@Param('name') name: string, @Query() q: EventQuery): Promise<EventPageDto> {
    return this.targets.events(name, q);
  }
}
