import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** What this middleware adds to a request (Express keeps the original URL). */
export interface LoggedRequest extends IncomingMessage {
  id?: string;
  /** read-only: this request's logger, naming its token once one is known */
  readonly log?: Logger;
  originalUrl?: string;
  /** set by Express when a route matched */
  route?: { path?: string };
  baseUrl?: string;
}

/** Receives one observation per answered request. */
export type RequestObserver = (method: string, route: string, status: number, seconds: number) => void;

/**
 * Gives every request an id (the caller's X-Request-Id when it is sane, else a
 * new one), echoes it in the response and logs one line when the response ends.
 * Only method, path, status and timing are logged: never headers or bodies.
 */
export function requestLogging(logger: Logger, observe?: RequestObserver): (req: LoggedRequest, res: ServerResponse, next: () => void) => void {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    const started = process.hrtime.bigint();
    req.id = id;
    // made on first use (most requests log nothing at the configured level),
    // naming the caller's token once authentication has found it
    let log: Logger | undefined;
    let named: string | undefined;
    Object.defineProperty(req, 'log', {
      configurable: true,
      enumerable: false,
      get: () => {
        const tokenName = (req as { principal?: { name?: string } }).principal?.name;
        if (!log || named !== tokenName) {
          log = logger.child(tokenName === undefined ? { requestId: id } : { requestId: id, tokenName });
          named = tokenName;
        }
        return log;
      },
    });
    res.setHeader('X-Request-Id', id);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : 'info';
      const route = req.route?.path ? `${req.baseUrl ?? ''}${req.route.path}` : 'unmatched';
      observe?.(req.method ?? 'GET', route, res.statusCode, ms / 1000);
      if (!logger.isLevelEnabled(level)) return;
      const path = (req.originalUrl ?? req.url ?? '').split('?')[0];
      req.log![level]({ method: req.method, path, status: res.statusCode, durationMs: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}
