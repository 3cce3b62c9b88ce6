// Bodies are JSON: a write with another content type is refused with 415
// before anything reads it, instead of being parsed as nothing (a PATCH that
// answers 200 and changes nothing).
import type { IncomingMessage, ServerResponse } from 'node:http';

const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json$/;

export function requireJsonBody(req: IncomingMessage, _res: ServerResponse, next: (err?: unknown) => void): void {
  if (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH') return next();
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (!hasBody || JSON_TYPE.test(type)) return next();
  const err = Object.assign(new Error(`request body: content type ${type ? `"${type}"` : '(none)'} is not accepted; send application/json`), { status: 415, expose: true });
  next(err);
}
