import { Controller, Get, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedRequest } from '../auth/auth.guard';
import { ROLES, type Role, TenantRoute, type TenantRole } from '../auth/roles';
import { ApiErrors } from '../common/openapi-errors';

export class SessionDto {
  @ApiProperty({ description: 'the token\'s name' }) name!: string;
  @ApiProperty({ enum: ROLES, description: "global role; for a tenant member the highest of its tenants' roles" }) role!: Role;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', enum: ['viewer', 'operator'] }, description: 'a tenant member: its tenants and its role in each; absent for a global principal' })
  tenants?: Record<string, TenantRole>;
  @ApiPropertyOptional({ format: 'date-time', description: 'when the token stops being accepted; absent for a token that never expires' }) expiresAt?: string;
  @ApiPropertyOptional({ description: 'true for a person signed in through OpenID Connect (the page signs in again before the token expires); absent otherwise' })
  singleSignOn?: boolean;
}

/** Who the bearer token belongs to: the status page signs in with it and shows actions by role. */
@ApiTags('fleet')
@ApiBearerAuth()
@ApiErrors()
@TenantRoute()
@Controller('api/v1/session')
export class SessionController {
  @Get()
  @ApiOkResponse({ type: SessionDto })
  session(@Req() req: AuthenticatedRequest): SessionDto {
    // the guard has set the principal on every route that is not @Public()
    const { name, role, tenants, expiresAt, oidc } = req.principal!;
    return {
      name,
      role,
      ...(tenants ? { tenants: { ...tenants } } : {}),
      ...(typeof expiresAt === 'number' ? { expiresAt: new Date(expiresAt).toISOString() } : {}),
      ...(oidc ? { singleSignOn: true } : {}),
    };
  }
}
