// What one audit entry says, and how a finished request becomes one. Pure:
// the middleware gathers the facts, this decides what is kept of them.
import type { ActorKind } from '../database/entities';

/** One audit entry as it is queued, stored, logged and answered. */
export interface AuditEntry {
  at: Date;
  actor: AuditActor;
  /** the tenant the request acted in; null for a global caller's hub-wide requests */
  tenant: string | null;
  /** `<METHOD> <route pattern>`, e.g. `PATCH /api/v1/projects/:name`, or `<METHOD> unmatched` */
  action: string;
  object: AuditObject | null;
  /** the HTTP status answered */
  outcome: number;
  requestId: string;
  sourceAddress: string | null;
}

export interface AuditActor {
  kind: ActorKind;
  /** token id, OIDC subject, or 'anonymous' */
  id: string;
  name: string;
  email: string | null;
}

export interface AuditObject {
  kind: string;
  name: string | null;
}

/** Who asked, as far as the hub knows it: the principal's token, or nobody (a refused request without a valid token). */
export interface RequestActor {
  tokenId: string;
  name: string;
  /** set for a person signed in through OIDC (not yet): the subject is then the id */
  oidc?: { subject: string; email: string | null };
}

/** The facts of one answered request, gathered after the response ended. */
export interface FinishedRequest {
  at: Date;
  method: string;
  /** the path without its query string */
  path: string;
  /** the matched route's pattern and parameters; undefined when no route matches */
  route?: { pattern: string; params: Record<string, string> };
  status: number;
  actor?: RequestActor;
  tenant?: string | null;
  /** `name` of a JSON body whose create succeeded (validated by the route's DTO), the only part of a body ever kept */
  createdName?: string;
  requestId: string;
  sourceAddress?: string;
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Refusals recorded on every route, reads included: no or a wrong token, a role too small, too many failures. */
const REFUSED = new Set([401, 403, 429]);
/** The anonymous actor's id, a word no token id (a uuid) or OIDC subject takes the place of by accident. */
export const ANONYMOUS_ACTOR_ID = 'anonymous';

const MAX_NAME = 253;
const MAX_ACTION = 300;

/** Whether a request leaves an entry: every mutating API request, and every refused request anywhere. */
export function isAudited(method: string, path: string, status: number): boolean {
  if (REFUSED.has(status)) return true;
  return MUTATING.has(method) && (path === '/api' || path.startsWith('/api/'));
}

/** The entry a finished request leaves. Keeps no query string, no header and no body beyond a created object's name. */
export function auditEntryOf(r: FinishedRequest): AuditEntry {
  const pattern = r.route?.pattern ?? 'unmatched';
  return {
    at: r.at,
    actor: actorOf(r.actor),
    tenant: r.tenant ?? null,
    action: clip(`${r.method} ${pattern}`, MAX_ACTION),
    object: r.route ? objectOf(r.route.pattern, r.route.params, r.createdName) : null,
    outcome: r.status,
    requestId: r.requestId,
    sourceAddress: r.sourceAddress ?? null,
  };
}

function actorOf(a: RequestActor | undefined): AuditActor {
  if (!a || a.tokenId === ANONYMOUS_ACTOR_ID) return { kind: 'anonymous', id: ANONYMOUS_ACTOR_ID, name: ANONYMOUS_ACTOR_ID, email: null };
  if (a.oidc) return { kind: 'oidc', id: clip(a.oidc.subject, 255), name: clip(a.name, 255), email: a.oidc.email === null ? null : clip(a.oidc.email, 320) };
  return { kind: 'token', id: a.tokenId, name: clip(a.name, 255), email: null };
}

/**
 * The object a route acts on: its kind is the first collection after
 * /api/v1 in the singular (`/api/v1/projects/:name/suspend` → project), its
 * name the route's parameters joined by '/', or the name a create was given.
 */
export function objectOf(pattern: string, params: Record<string, string>, createdName?: string): AuditObject | null {
  const segments = pattern.split('/').filter(Boolean);
  if (segments[0] !== 'api' || segments[1] !== 'v1' || !segments[2] || segments[2].startsWith(':')) return null;
  const kind = singular(segments[2]).slice(0, 32);
  const values = segments.filter((s) => s.startsWith(':')).map((s) => params[s.slice(1)] ?? '');
  const name = values.length > 0 ? values.join('/') : (createdName ?? null);
  return { kind, name: name === null || name === '' ? null : clip(name, MAX_NAME) };
}

function singular(collection: string): string {
  return collection.endsWith('s') ? collection.slice(0, -1) : collection;
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}

/** `kind/name`, or `kind` alone, as the API shows an object. */
export function formatObject(o: AuditObject | null): string | null {
  if (!o) return null;
  return o.name === null ? o.kind : `${o.kind}/${o.name}`;
}
