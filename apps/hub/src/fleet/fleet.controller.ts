import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeEndpoint, ApiExtraModels, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { ServerResponse } from 'node:http';
import type { AuthenticatedRequest } from '../auth/auth.guard';
import { TenantRoute } from '../auth/roles';
import { TenantReaches } from '../tenancy/tenant-reach';
import { ApiErrors } from '../common/openapi-errors';
import { FleetStream } from './fleet-stream';
import { FleetSummaryDto, MatrixCellDto, MatrixPageDto, MatrixQuery } from './fleet.dto';
import { FleetService } from './fleet.service';

@ApiTags('fleet')
@ApiBearerAuth()
@ApiErrors()
@ApiExtraModels(MatrixCellDto)
@TenantRoute()
@Controller('api/v1/fleet')
export class FleetController {
  constructor(
    private readonly fleet: FleetService,
    private readonly stream: FleetStream,
    private readonly reaches: TenantReaches,
  ) {}

  /** Clusters and Targets by state, per cluster group, in one query. */
  @Get('summary')
  @ApiOkResponse({ type: FleetSummaryDto })
  async summary(@Req() req: AuthenticatedRequest): Promise<FleetSummaryDto> {
    return this.fleet.summary(await this.reaches.of(req.principal));
  }

  /** A page of clusters × Projects with the state of each Target. */
  @Get('matrix')
  @ApiOkResponse({ type: MatrixPageDto })
  async matrix(@Query() q: MatrixQuery, @Req() req: AuthenticatedRequest): Promise<MatrixPageDto> {
    return this.fleet.matrix(q, await this.reaches.of(req.principal));
  }

  /**
   * Server-Sent Events (text/event-stream) telling the status page when to
   * reload. Left out of the OpenAPI document: a stream never ends, which a
   * request/response contract (and its fuzzer) cannot describe; see docs/status-page.md.
   */
  @Get('events')
  @ApiExcludeEndpoint()
  events(@Req() req: AuthenticatedRequest, @Res() res: ServerResponse): void {
    // the guard has set the principal; the stream ends when its token stops holding
    this.stream.open(res, req.principal!);
  }
}
