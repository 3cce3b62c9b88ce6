import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { AuthenticatedRequest } from '../auth/auth.guard';
import { TenantRoute } from '../auth/roles';
import { TenantReaches } from '../tenancy/tenant-reach';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/openapi-errors';
import { ClusterDto, ClusterPageDto, ClusterQuery, CreateClusterDto, DeleteClusterQuery, UpdateClusterDto } from './clusters.dto';
import { ClustersService } from './clusters.service';

@ApiTags('clusters')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/clusters')
export class ClustersController {
  constructor(
    private readonly clusters: ClustersService,
    private readonly reaches: TenantReaches,
  ) {}

  /** Registers a cluster; push clusters are checked at once (an unreachable one is kept, its status says why). */
  @Post()
  @ApiCreatedResponse({ type: ClusterDto })
  create(@Body() dto: CreateClusterDto): Promise<ClusterDto> {
    return this.clusters.create(dto);
  }

  @Get()
  @ApiOkResponse({ type: ClusterPageDto })
  @TenantRoute()
  async list(@Query() q: ClusterQuery, @Req() req: AuthenticatedRequest): Promise<ClusterPageDto> {
    return this.clusters.list(q, await this.reaches.of(req.principal));
  }

  @Get(':name')
  @ApiOkResponse({ type: ClusterDto })
  @TenantRoute()
  async get(@Param('name') name: string, @Req() req: AuthenticatedRequest): Promise<ClusterDto> {
    return this.clusters.get(name, await this.reaches.of(req.principal));
  }

  /** Changes group, labels, endpoint or credentials (rotation); Targets follow label and group changes. */
  @Patch(':name')
  @ApiOkResponse({ type: ClusterDto })
  update(@Param('name') name: string, @Body() dto: UpdateClusterDto): Promise<ClusterDto> {
    return this.clusters.update(name, dto);
  }

  /** Checks connectivity again (GET /version) and records the result. */
  @Post(':name/check')
  @HttpCode(200)
  @ApiOkResponse({ type: ClusterDto })
  check(@Param('name') name: string): Promise<ClusterDto> {
    return this.clusters.recheck(name);
  }

  /** Refused (409) while Projects target the cluster, unless ?force=true. */
  @Delete(':name')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'deleted' })
  async delete(@Param('name') name: string, @Query() q: DeleteClusterQuery): Promise<void> {
    await this.clusters.delete(name, q.force === 'true');
  }
}
