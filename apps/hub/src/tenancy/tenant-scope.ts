// Which tenants a principal may act in. Global principals (admins, and
// tokens issued without a tenant) reach every tenant; a tenant member only
// those it holds a role in, and only with that role.
import type { Principal, TenantRole } from '../auth/roles';
import { roleAllows } from '../auth/roles';
import { ForbiddenError } from '../common/errors';

/** The tenants `p` may act in with at least `need`; undefined: every tenant. */
export function tenantsAllowed(p: Principal | undefined, need: TenantRole): string[] | undefined {
  if (!p?.tenants) return undefined;
  return Object.entries(p.tenants)
    .filter(([, role]) => roleAllows(role, need))
    .map(([name]) => name)
    .sort();
}

/**
 * The tenant a request's audit entry names: `tenant` when `p` is global or
 * one of its members, else none (the entry then names the member's own
 * tenant). A member probing another tenant is shown to admins and its own
 * tenant, not to the probed tenant's members, who would read its identity.
 */
export function auditTenant(p: Principal | undefined, tenant: string): string | null {
  return isGlobal(p) || p?.tenants?.[tenant] !== undefined ? tenant : null;
}

/** Whether `p` reaches every tenant. */
export function isGlobal(p: Principal | undefined): boolean {
  return !p?.tenants;
}

/** Throws a 403 naming the rule unless `p` may act in `tenant` with at least `need`. */
export function requireTenant(p: Principal | undefined, tenant: string, need: TenantRole, what: string): void {
  const allowed = tenantsAllowed(p, need);
  if (allowed === undefined || allowed.includes(tenant)) return;
  const held = p?.tenants?.[tenant];
  throw new ForbiddenError(
    held
      ? `${what} belongs to tenant "${tenant}", where "${p!.name}" is ${held}; this needs ${need} (rule: tenant role)`
      : `${what} belongs to tenant "${tenant}"; "${p!.name}" is a member of ${memberOf(p!)} only (rule: tenant membership)`,
  );
}

/** Throws a 403 unless `p` is global: hub-wide objects (clusters, tokens, tenants, sinks) are not a tenant's to change. */
export function requireGlobal(p: Principal | undefined, what: string): void {
  if (isGlobal(p)) return;
  throw new ForbiddenError(`${what} is hub-wide; "${p!.name}" is a member of ${memberOf(p!)} only and may act only on its tenants' Projects (rule: tenant scope)`);
}

function memberOf(p: Principal): string {
  return Object.keys(p.tenants ?? {})
    .sort()
    .map((t) => `"${t}"`)
    .join(', ');
}
