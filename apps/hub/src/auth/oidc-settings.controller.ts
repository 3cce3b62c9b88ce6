import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { NotFoundError } from '../common/errors';
import { ApiErrors } from '../common/openapi-errors';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { OidcSettingsDto } from './oidc-bindings.dto';
import { Public } from './roles';

/** Where to sign in: the CLI and the page read this before they have any token. */
@ApiTags('auth')
@ApiErrors()
@Public()
@Controller('api/v1/auth/oidc')
export class OidcSettingsController {
  constructor(@Inject(HUB_CONFIG) private readonly config: HubConfig) {}

  /** The provider, client id and audience of single sign-on; 404 when the hub has none. */
  @Get()
  @ApiOkResponse({ type: OidcSettingsDto })
  settings(): OidcSettingsDto {
    const oidc = this.config.oidc;
    if (!oidc) throw new NotFoundError('single sign-on setting', 'oidc');
    return { issuer: oidc.issuer, clientId: oidc.clientId, audience: oidc.audience };
  }
}
