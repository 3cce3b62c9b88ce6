import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ConflictError, NotFoundError } from '../common/errors';
import { ApiErrors } from '../common/openapi-errors';
import { ClustersRepository } from '../repositories/clusters.repository';
import { AgentBootstrapService } from './agent-bootstrap.service';
import { AgentLinksRepository } from './agent-links.repository';
import { AgentViewDto, BootstrapTokenDto } from './agents.dto';
import { agentView } from './agent-view';

@ApiTags('clusters')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/clusters/:name/agent')
export class AgentsController {
  constructor(
    private readonly clusters: ClustersRepository,
    private readonly links: AgentLinksRepository,
    private readonly bootstrap: AgentBootstrapService,
  ) {}

  @Get()
  @ApiOkResponse({ type: AgentViewDto })
  async get(@Param('name') name: string): Promise<AgentViewDto> {
    const cluster = await this.agentCluster(name);
    return agentView((await this.links.states([cluster.id])).get(cluster.id));
  }

  /** Revokes the agent's credential, cuts its stream, and returns a new bootstrap token; the cluster keeps its Targets and history. */
  @Post('reset')
  @HttpCode(200)
  @ApiOkResponse({ type: BootstrapTokenDto })
  async reset(@Param('name') name: string): Promise<BootstrapTokenDto> {
    return this.bootstrap.reset((await this.agentCluster(name)).id);
  }

  private async agentCluster(name: string) {
    const cluster = await this.clusters.findByName(name);
    if (!cluster) throw new NotFoundError('cluster', name);
    if (cluster.mode !== 'agent') throw new ConflictError(`cluster "${name}" is a push cluster: it has no agent`);
    return cluster;
  }
}
