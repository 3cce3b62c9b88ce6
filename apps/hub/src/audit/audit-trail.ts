// Express middleware that leaves the audit entry of a request once its
// response has ended: the status is then known whatever answered it (a
// route, a guard, the early token check, the body parser, the rate limiter),
// which an interceptor, never reached by refused requests, could not see.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../auth/roles';
import type { Clock } from '../common/clock';
import { loggableError } from '../common/http-exception.filter';
import { mayMatch } from '../common/route-prefix';
import type { LoggedRequest } from '../logging/request-logging';
import { auditEntryOf, isAudited, type FinishedRequest } from './audit-entry';
import type { AuditEntry } from './audit-entry';

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
  match(path: string): false | { params: Record<string, unknown> };
}

/** What the audit trail reads of a request beyond the logged one. */
interface AuditedRequest extends LoggedRequest {
  principal?: Principal;
  /** set by a route once it knows the tenant (ProjectAccess); null or absent: none named */
  tenant?: string | null;
  body?: unknown;
}

export interface AuditTrailOptions {
  record(entry: AuditEntry): void;
  clock: Clock;
  /** the Express router's layers, read at request time (routes are added after this middleware) */
  layers(): RouteLayer[];
}

export function auditTrail(options: AuditTrailOptions): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  return (req: AuditedRequest, res, next) => {
    res.on('finish', () => {
      // an exception here would be uncaught (an event handler): recording must never take the hub down
      try {
        record(req, res.statusCode, options);
      } catch (err) {
        req.log?.error({ err: loggableError(err) }, 'audit entry not recorded');
      }
    });
    next();
  };
}

/** Leaves the entry of an answered request, when it is one the log keeps. */
function record(req: AuditedRequest, status: number, options: AuditTrailOptions): void {
  const method = req.method ?? 'GET';
  const path = (req.originalUrl ?? req.url ?? '').split('?')[0];
  if (!isAudited(method, path, status)) return;
  const route = routeOf(options.layers(), method, path);
  const finished: FinishedRequest = {
    at: options.clock.now(),
    method,
    path,
    route,
    status,
    actor: req.principal,
    tenant: req.tenant ?? soleTenant(req.principal),
    createdName: method === 'POST' && status >= 200 && status < 300 ? nameOf(req.body) : undefined,
    requestId: req.id ?? '',
    sourceAddress: req.socket?.remoteAddress,
  };
  options.record(auditEntryOf(finished));
}

/** A member of one tenant acts in it, also where no route got as far as naming one (a refusal by the guard). */
function soleTenant(p: Principal | undefined): string | null {
  const tenants = Object.keys(p?.tenants ?? {});
  return tenants.length === 1 ? tenants[0] : null;
}

/** The route answering `method` on `path`, else the first route of that path (a 405); undefined when none matches. */
function routeOf(layers: RouteLayer[], method: string, path: string): FinishedRequest['route'] {
  const m = method.toLowerCase();
  const lower = path.toLowerCase();
  let fallback: FinishedRequest['route'];
  for (const layer of layers) {
    if (!layer.route || !mayMatch(layer, lower)) continue;
    let params: Record<string, string>;
    try {
      const match = layer.match(path);
      if (!match) continue;
      params = stringParams(match.params);
    } catch {
      // the path matched but a parameter does not decode (Express answered 400): the route without its parameters
      params = {};
    }
    const found = { pattern: layer.route.path, params };
    const methods = layer.route.methods;
    if (methods[m] || methods._all || (m === 'head' && methods.get)) return found;
    fallback ??= found;
  }
  return fallback;
}

function stringParams(params: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The `name` of a create's JSON body, which the route's DTO has validated; nothing else of a body is read. */
function nameOf(body: unknown): string | undefined {
  const name = body !== null && typeof body === 'object' ? (body as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name.length > 0 && name.length <= 253 ? name : undefined;
}
