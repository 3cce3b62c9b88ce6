// What a person signed in through OpenID Connect may do: the union of the
// claim bindings their subject and groups match. Pure: the caller brings the
// bindings (from a short cache) and the verified claims.
import type { BindingClaim } from '../database/entities';
import { type Principal, type Role, roleAllows, type TenantRole } from './roles';

/** A verified token's person, as the bindings see it. */
export interface OidcIdentity {
  subject: string;
  email: string | null;
  /** email, or preferred_username, or the subject */
  name: string;
  groups: readonly string[];
  /** epoch ms the token stops working */
  expiresAt: number;
}

export interface Binding {
  claim: BindingClaim;
  value: string;
  /** null: global */
  tenant: string | null;
  role: Role;
}

/** A token may list at most this many groups: more is refused rather than looked up one by one. */
export const MAX_GROUPS = 1000;

/** Why claims are not a usable identity. */
export class OidcClaimsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OidcClaimsError';
  }
}

/** The identity in verified claims; `groupsClaim` names the claim that lists groups (an array of strings, or one string). */
export function identityOf(claims: Record<string, unknown>, groupsClaim: string): OidcIdentity {
  const subject = claims.sub;
  if (typeof subject !== 'string' || subject === '' || subject.length > 255) throw new OidcClaimsError('the token has no usable "sub" claim (a string of 1 to 255 characters)');
  if (typeof claims.exp !== 'number') throw new OidcClaimsError('the token has no "exp" claim');
  const email = typeof claims.email === 'string' && claims.email.length <= 320 ? claims.email : null;
  const username = typeof claims.preferred_username === 'string' && claims.preferred_username.length <= 255 ? claims.preferred_username : null;
  const raw = claims[groupsClaim];
  const listed = raw === undefined ? [] : typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : undefined;
  if (listed === undefined) throw new OidcClaimsError(`the token's "${groupsClaim}" claim is neither a list of strings nor a string`);
  if (listed.length > MAX_GROUPS) throw new OidcClaimsError(`the token lists ${listed.length} groups in "${groupsClaim}"; at most ${MAX_GROUPS} are accepted`);
  const groups = listed.filter((g): g is string => typeof g === 'string');
  return { subject, email, name: email ?? username ?? subject, groups, expiresAt: claims.exp * 1000 };
}

/** Bindings by what they match, so a request costs one lookup per group, not a scan of every binding. */
export class BindingIndex {
  private readonly byKey = new Map<string, Binding[]>();

  constructor(bindings: readonly Binding[]) {
    for (const b of bindings) {
      const key = keyOf(b.claim, b.value);
      const list = this.byKey.get(key);
      if (list) list.push(b);
      else this.byKey.set(key, [b]);
    }
  }

  /** Every binding the identity matches, by subject or by any of its groups. */
  matching(identity: Pick<OidcIdentity, 'subject' | 'groups'>): Binding[] {
    const found = [...(this.byKey.get(keyOf('subject', identity.subject)) ?? [])];
    for (const group of new Set(identity.groups)) found.push(...(this.byKey.get(keyOf('group', group)) ?? []));
    return found;
  }
}

function keyOf(claim: BindingClaim, value: string): string {
  return `${claim}\u0000${value}`;
}

/**
 * The principal the bindings give: any global binding makes it global with
 * the highest global role; otherwise it holds, in each bound tenant, the
 * highest role bound there, and its role is the highest of those. Undefined:
 * no binding matches.
 */
export function principalOf(identity: OidcIdentity, bindings: readonly Binding[]): Principal | undefined {
  if (bindings.length === 0) return undefined;
  const base = { tokenId: identity.subject, name: identity.name, oidc: { subject: identity.subject, email: identity.email }, expiresAt: identity.expiresAt };
  const global = bindings.filter((b) => b.tenant === null);
  if (global.length > 0) return { ...base, role: highest(global.map((b) => b.role)) };
  const tenants: Record<string, TenantRole> = {};
  for (const b of bindings) {
    const role = b.role === 'admin' ? 'operator' : b.role; // never stored (a check forbids it); kept safe anyway
    const held = tenants[b.tenant!];
    if (!held || !roleAllows(held, role)) tenants[b.tenant!] = role;
  }
  return { ...base, role: highest(Object.values(tenants)), tenants };
}

function highest(roles: Role[]): Role {
  return roles.reduce((a, b) => (roleAllows(a, b) ? a : b));
}

/** Whether two principals hold the same rights (a live stream stays open only while they do). */
export function sameRights(a: Principal, b: Principal): boolean {
  if (a.role !== b.role) return false;
  const ta = Object.entries(a.tenants ?? {}).sort();
  const tb = Object.entries(b.tenants ?? {}).sort();
  return (a.tenants === undefined) === (b.tenants === undefined) && JSON.stringify(ta) === JSON.stringify(tb);
}
