import { Inject, Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { writeAdminTokenFile } from './admin-token-file';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';
import { OidcAuthenticator } from './oidc-authenticator';
import { OidcBindingsController } from './oidc-bindings.controller';
import { OidcBindingsService } from './oidc-bindings.service';
import { OidcLoginController } from './oidc-login.controller';
import { OidcLoginService } from './oidc-login.service';
import { OidcSettingsController } from './oidc-settings.controller';
import { TokensController } from './tokens.controller';
import { RepositoriesModule } from '../repositories/repositories.module';

/** Where the hub prints what a human must see once (the URL, the first admin token). */
export const ANNOUNCE = Symbol('ANNOUNCE');
export type Announce = (line: string) => void;
/** Whether a person watches the output (stdout is a terminal): only then is a secret announced. */
export const INTERACTIVE = Symbol('INTERACTIVE');

@Injectable()
class AdminBootstrap implements OnApplicationBootstrap {
  constructor(
    private readonly auth: AuthService,
    @Inject(ANNOUNCE) private readonly announce: Announce,
    @Inject(INTERACTIVE) private readonly interactive: boolean,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const token = await this.auth.bootstrapAdmin();
    if (!token) return;
    const file = writeAdminTokenFile(this.config.dataDir, token);
    this.announce(`first admin token written to ${file} (readable by this user only)`);
    if (this.interactive) this.announce(`first admin token (shown only now; keep it): ${token}`);
  }
}

@Module({
  imports: [RepositoriesModule],
  controllers: [TokensController, OidcBindingsController, OidcSettingsController, OidcLoginController],
  providers: [AuthService, AdminBootstrap, OidcBindingsService, OidcAuthenticator, OidcLoginService, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [AuthService, OidcAuthenticator],
})
export class AuthModule {}
