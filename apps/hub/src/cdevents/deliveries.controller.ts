import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import type { AuthenticatedRequest } from '../auth/auth.guard';
import { TenantRoute } from '../auth/roles';
import { ProjectAccess } from '../tenancy/project-access';
import { deliveryFor } from '../projects/viewer-masking';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/openapi-errors';
import { NotFoundError } from '../common/errors';
import { CdeventOutboxRepository } from '../repositories/cdevent-outbox.repository';
import { DeliveryListDto, DeliveryQuery } from './deliveries.dto';

@ApiTags('projects')
@ApiBearerAuth()
@ApiErrors()
@TenantRoute()
@Controller('api/v1/projects')
export class DeliveriesController {
  constructor(
    private readonly outbox: CdeventOutboxRepository,
    private readonly access: ProjectAccess,
  ) {}

  @Get(':name/deliveries')
  @ApiOperation({ summary: "The Project's CDEvents and how their delivery to its sink went, newest first (kept after the Project is deleted)" })
  @ApiOkResponse({ type: DeliveryListDto })
  async deliveries(@Param('name') name: string, @Query() q: DeliveryQuery, @Req() req: AuthenticatedRequest): Promise<DeliveryListDto> {
    // a member reaches a live Project of its tenants only; a deleted one's tenant is unknown
    const tenant = await this.access.require(req, name, 'viewer');
    const items = await this.outbox.ofProject(name, q.limit, q.state);
    if (!items) throw new NotFoundError('project', name);
    return { items: items.map((d) => deliveryFor(req.principal, tenant, d)), limit: q.limit };
  }
}
