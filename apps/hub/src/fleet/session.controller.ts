import { Controller, Get, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedRequest } from '../auth/auth.guard';
import { ROLES, type Role } from '../auth/roles';
import { ApiErrors } from '../common/openapi-errors';

export class SessionDto {
  @ApiProperty({ description: 'the token\'s name' }) name!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
}

/** Who the bearer token belongs to: the status page signs in with it and shows actions by role. */
@ApiTags('fleet')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/session')
export class SessionController {
  @Get()
  @ApiOkResponse({ type: SessionDto })
  session(@Req() req: AuthenticatedRequest): SessionDto {
    // the guard has set the principal on every route that is not @Public()
    const { name, role } = req.principal!;
    return { name, role };
  }
}
