import { Body, Controller, Delete, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/openapi-errors';
import { PageQuery } from '../common/paging';
import type { AuthenticatedRequest } from './auth.guard';
import { AuthService } from './auth.service';
import { RequiresRole } from './roles';
import { CreatedTokenDto, CreateTokenDto, TokenDto, TokenPageDto } from './tokens.dto';

@ApiTags('tokens')
@ApiBearerAuth()
@ApiErrors()
@RequiresRole('admin')
@Controller('api/v1/tokens')
export class TokensController {
  constructor(private readonly auth: AuthService) {}

  @Post()
  @ApiCreatedResponse({ type: CreatedTokenDto })
  create(@Body() dto: CreateTokenDto): Promise<CreatedTokenDto> {
    return this.auth.create(dto.name, dto.role, dto.expiresAt, dto.tenant);
  }

  @Get()
  @ApiOkResponse({ type: TokenPageDto })
  list(@Query() q: PageQuery): Promise<TokenPageDto> {
    return this.auth.list(q.limit, q.offset);
  }

  /** Revokes the token; it stops working at once. A token cannot revoke itself (409): use another admin token. */
  @Delete(':id')
  @ApiOkResponse({ type: TokenDto })
  revoke(@Param('id') id: string, @Req() req: AuthenticatedRequest): Promise<TokenDto> {
    return this.auth.revoke(id, req.principal);
  }
}
