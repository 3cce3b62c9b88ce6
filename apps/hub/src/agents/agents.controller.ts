import { Body, Controller, Get, Header, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { hostname } from 'node:os';
import { RequiresRole } from '../auth/roles';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { AgentGrpcServer } from './agent-grpc.server';
import { agentInstallManifest } from './install-manifest';
import { ConflictError, NotFoundError } from '../common/errors';
import { ApiErrors } from '../common/openapi-errors';
import { ClustersRepository } from '../repositories/clusters.repository';
import { AgentBootstrapService } from './agent-bootstrap.service';
import { AgentCa } from './agent-ca.service';
import { AgentLinksRepository } from './agent-links.repository';
import { AgentUpgrades } from './agent-upgrades';
import { AgentUpgradeDto, AgentUpgradeRequestDto, AgentViewDto, BootstrapTokenDto } from './agents.dto';
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
    private readonly server: AgentGrpcServer,
    private readonly agentCa: AgentCa,
    private readonly upgrades: AgentUpgrades,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
  ) {}

  @Get()
  @ApiOkResponse({ type: AgentViewDto })
  async get(@Param('name') name: string): Promise<AgentViewDto> {
    const cluster = await this.agentCluster(name);
    return agentView((await this.links.states([cluster.id])).get(cluster.id));
  }

  /** Revokes the agent's client certificate, cuts its stream, and returns a new bootstrap token; the cluster keeps its Targets and history. */
  @Post('reset')
  @HttpCode(200)
  @ApiOkResponse({ type: BootstrapTokenDto })
  async reset(@Param('name') name: string): Promise<BootstrapTokenDto> {
    return this.bootstrap.reset((await this.agentCluster(name)).id);
  }

  /**
   * The agent's whole install, with a fresh one-time bootstrap token (any
   * earlier unused one stops working): `kubectl apply -f` of it installs the
   * agent, which registers and connects on its own.
   */
  @Get('manifest')
  @RequiresRole('operator')
  @Header('Content-Type', 'application/yaml; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @ApiProduces('application/yaml')
  @ApiOkResponse({ description: 'YAML documents: Namespace, CRD, ServiceAccount, RBAC, Secret (hub address, hub agent CA, bootstrap token), Deployment', schema: { type: 'string' } })
  async manifest(@Param('name') name: string): Promise<string> {
    const cluster = await this.agentCluster(name);
    const { bootstrapToken } = await this.bootstrap.issue(cluster.id);
    const agents = this.config.agents;
    return agentInstallManifest({ hubAddress: agents.publicAddress ?? `${agents.host === '0.0.0.0' ? hostname() : agents.host}:${this.server.port}`, bootstrapToken, caPem: this.agentCa.certPem, image: agents.image });
  }

  /**
   * Moves the agent to the hub's configured agent image (FLOTILLA_AGENT_IMAGE) over its stream:
   * it sets the image on its own Deployment and Kubernetes rolls it. The request names no
   * image: an operator cannot make an agent run an image of their choosing.
   */
  @Post('upgrade')
  @RequiresRole('operator')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: AgentUpgradeDto, description: 'sent to the agent; its version changes once the new agent is ready and connected' })
  async upgrade(@Param('name') name: string, @Body() _body: AgentUpgradeRequestDto): Promise<AgentUpgradeDto> {
    return this.upgrades.request(name);
  }

  private async agentCluster(name: string) {
    const cluster = await this.clusters.findByName(name);
    if (!cluster) throw new NotFoundError('cluster', name);
    if (cluster.mode !== 'agent') throw new ConflictError(`cluster "${name}" is a push cluster: it has no agent`);
    return cluster;
  }
}
