import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ForbiddenError, UnauthorizedError } from '../common/errors';
import type { LoggedRequest } from '../logging/request-logging';
import { AuthService } from './auth.service';
import { requireGlobal } from '../tenancy/tenant-scope';
import { ANONYMOUS, PUBLIC_ROUTE, REQUIRED_ROLE, TENANT_ROUTE, type Principal, type Role, roleAllows } from './roles';

export interface AuthenticatedRequest extends LoggedRequest {
  principal?: Principal;
  /** the tenant the request acts in, once a route knows it (its audit entry names it) */
  tenant?: string | null;
}

/** Every route needs a bearer token unless marked @Public(); reads need viewer, writes operator. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const req = ctx.switchToHttp().getRequest<AuthenticatedRequest>();
    // authenticateEarly has checked the token before the body was read
    const principal = req.principal ?? (await this.auth.authenticate(req.headers.authorization, req.socket?.remoteAddress));
    const needed =
      this.reflector.getAllAndOverride<Role>(REQUIRED_ROLE, targets) ?? (req.method === 'GET' || req.method === 'HEAD' ? 'viewer' : 'operator');
    // anonymous readers are asked for a token, not told their role is too small
    if (principal === ANONYMOUS && needed !== 'viewer') throw new UnauthorizedError('missing bearer token: send "Authorization: Bearer <token>"');
    if (!roleAllows(principal.role, needed)) {
      throw new ForbiddenError(`token "${principal.name}" has role ${principal.role}; this needs ${needed}`);
    }
    if (principal.tenants && !this.reflector.getAllAndOverride<boolean>(TENANT_ROUTE, targets)) requireGlobal(principal, `${req.method} ${(req.originalUrl ?? req.url ?? '').split('?')[0]}`);
    req.principal = principal;
    return true;
  }
}
