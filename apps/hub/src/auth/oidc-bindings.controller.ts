import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/openapi-errors';
import { PageQuery } from '../common/paging';
import { CreateOidcBindingDto, OidcBindingDto, OidcBindingPageDto } from './oidc-bindings.dto';
import { OidcBindingsService } from './oidc-bindings.service';
import { RequiresRole } from './roles';

@ApiTags('oidc-bindings')
@ApiBearerAuth()
@ApiErrors()
@RequiresRole('admin')
@Controller('api/v1/oidc-bindings')
export class OidcBindingsController {
  constructor(private readonly bindings: OidcBindingsService) {}

  /** Gives everyone whose token carries the group (or subject) a role, in a tenant or globally. */
  @Post()
  @ApiCreatedResponse({ type: OidcBindingDto })
  create(@Body() dto: CreateOidcBindingDto): Promise<OidcBindingDto> {
    return this.bindings.create(dto);
  }

  @Get()
  @ApiOkResponse({ type: OidcBindingPageDto })
  list(@Query() q: PageQuery): Promise<OidcBindingPageDto> {
    return this.bindings.list(q.limit, q.offset);
  }

  /** Removes the binding: the people it let in lose that access with their next request, on every replica. */
  @Delete(':id')
  @ApiOkResponse({ type: OidcBindingDto })
  delete(@Param('id') id: string): Promise<OidcBindingDto> {
    return this.bindings.delete(id);
  }
}
