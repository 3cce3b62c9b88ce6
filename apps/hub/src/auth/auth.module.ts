import { Inject, Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';
import { TokensController } from './tokens.controller';
import { RepositoriesModule } from '../repositories/repositories.module';

/** Where the hub prints what a human must see once (the URL, the first admin token). */
export const ANNOUNCE = Symbol('ANNOUNCE');
export type Announce = (line: string) => void;

@Injectable()
class AdminBootstrap implements OnApplicationBootstrap {
  constructor(
    private readonly auth: AuthService,
    @Inject(ANNOUNCE) private readonly announce: Announce,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const token = await this.auth.bootstrapAdmin();
    if (token) this.announce(`first admin token (shown only now; keep it): ${token}`);
  }
}

@Module({
  imports: [RepositoriesModule],
  controllers: [TokensController],
  providers: [AuthService, AdminBootstrap, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [AuthService],
})
export class AuthModule {}
