import { SetMetadata } from '@nestjs/common';
import type { Role } from '../database/entities';

export type { Role };
export const ROLES: readonly Role[] = ['viewer', 'operator', 'admin'];

/** Each role may do what the roles before it may. */
export function roleAllows(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(needed);
}

export const PUBLIC_ROUTE = 'flotilla:public';
export const REQUIRED_ROLE = 'flotilla:role';

/** No token needed (health and metrics). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);

export const TENANT_ROUTE = 'flotilla:tenant-route';

/**
 * Tenant members may call the route; it scopes what it reads or changes to
 * their tenants itself. Every other route is for global principals only, so
 * a route added without thought of tenants is closed to them.
 */
export const TenantRoute = (): MethodDecorator & ClassDecorator => SetMetadata(TENANT_ROUTE, true);

/** Overrides the default: reads need `viewer`, writes need `operator`. */
export const RequiresRole = (role: Role): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_ROLE, role);

/** The roles a tenant member may hold; `admin` is only ever global. */
export type TenantRole = 'viewer' | 'operator';
export const TENANT_ROLES: readonly TenantRole[] = ['viewer', 'operator'];

/** Who made the request, as the guard found it. */
export interface Principal {
  tokenId: string;
  name: string;
  /** the global role; for a tenant member, the highest role it holds in any of its tenants */
  role: Role;
  /** absent: global (the role holds everywhere); present: the only tenants it may act in, with its role in each */
  tenants?: Readonly<Record<string, TenantRole>>;
  /** a person signed in through OpenID Connect: `tokenId` is then the provider's subject */
  oidc?: { subject: string; email: string | null };
  /** sha256 of the bearer token, so a long-lived stream can ask again whether it still holds */
  tokenHash?: string;
  /** epoch ms the token stops working; null: never */
  expiresAt?: number | null;
}

/** Who a request without a token is, where the hub lets anyone read (HubConfig.anonymousViewer). */
export const ANONYMOUS: Principal = { tokenId: 'anonymous', name: 'anonymous', role: 'viewer' };
