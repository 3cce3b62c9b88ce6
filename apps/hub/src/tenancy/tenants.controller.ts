import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedRequest } from '../auth/auth.guard';
import { RequiresRole, TenantRoute } from '../auth/roles';
import { ApiErrors } from '../common/openapi-errors';
import { PageQuery } from '../common/paging';
import { CreateTenantDto, TenantDto, TenantPageDto, UpdateTenantDto } from './tenants.dto';
import { TenantsService } from './tenants.service';

@ApiTags('tenants')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/tenants')
export class TenantsController {
  constructor(private readonly tenants: TenantsService) {}

  @Post()
  @RequiresRole('admin')
  @ApiCreatedResponse({ type: TenantDto })
  create(@Body() dto: CreateTenantDto): Promise<TenantDto> {
    return this.tenants.create(dto);
  }

  /** Admins and global viewers see every tenant; a member only its own. */
  @Get()
  @TenantRoute()
  @ApiOkResponse({ type: TenantPageDto })
  list(@Query() q: PageQuery, @Req() req: AuthenticatedRequest): Promise<TenantPageDto> {
    return this.tenants.list(q.limit, q.offset, req.principal);
  }

  @Get(':name')
  @TenantRoute()
  @ApiOkResponse({ type: TenantDto })
  get(@Param('name') name: string, @Req() req: AuthenticatedRequest): Promise<TenantDto> {
    return this.tenants.get(name, req.principal);
  }

  /** Replaces the fields given; new destinations re-sync the Targets of the tenant's Projects at once. */
  @Patch(':name')
  @RequiresRole('admin')
  @ApiOkResponse({ type: TenantDto })
  update(@Param('name') name: string, @Body() dto: UpdateTenantDto): Promise<TenantDto> {
    return this.tenants.update(name, dto);
  }

  /** Refused (409) while Projects belong to the tenant; its tokens are deleted with it. */
  @Delete(':name')
  @RequiresRole('admin')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'deleted' })
  async delete(@Param('name') name: string): Promise<void> {
    await this.tenants.delete(name);
  }
}
