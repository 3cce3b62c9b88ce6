import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedRequest } from '../auth/auth.guard';
import { TenantRoute } from '../auth/roles';
import { ApiErrors } from '../common/openapi-errors';
import { AuditPageDto, AuditQuery } from './audit.dto';
import { AuditService } from './audit.service';

@ApiTags('audit')
@ApiBearerAuth()
@ApiErrors()
// admins read every entry, tenant members their tenants' (AuditService.list)
@TenantRoute()
@Controller('api/v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  /** Mutating and refused requests, newest first; filter by actor, object and time. */
  @Get()
  @ApiOkResponse({ type: AuditPageDto })
  list(@Query() q: AuditQuery, @Req() req: AuthenticatedRequest): Promise<AuditPageDto> {
    return this.audit.list(q, req.principal);
  }
}
