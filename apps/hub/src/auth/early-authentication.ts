// The bearer token is checked before the body is read: a caller without a
// valid token learns nothing about what the API would make of its body
// (400, 413, 415) and costs no parsing. The guard then only checks the role.
import type { ServerResponse } from 'node:http';
import { UnauthorizedError } from '../common/errors';
import type { AuthService } from './auth.service';
import { ANONYMOUS } from './roles';
import type { AuthenticatedRequest } from './auth.guard';

/** API routes that take no token (they are @Public() too): where to sign in is asked before one has a token. */
const PUBLIC_API_PATHS = new Set(['/api/v1/auth/oidc']);

export function authenticateEarly(auth: AuthService): (req: AuthenticatedRequest, res: ServerResponse, next: (err?: unknown) => void) => void {
  return (req, _res, next) => {
    const path = (req.url ?? '').split('?')[0];
    if ((!path.startsWith('/api/v1/') && path !== '/api/v1') || PUBLIC_API_PATHS.has(path)) return next();
    auth.authenticate(req.headers.authorization, req.socket.remoteAddress).then(
      (principal) => {
        // anonymous reading (HubConfig.anonymousViewer) never reaches a write's body
        if (principal === ANONYMOUS && req.method !== 'GET' && req.method !== 'HEAD') return next(new UnauthorizedError('missing bearer token: send "Authorization: Bearer <token>"'));
        req.principal = principal;
        next();
      },
      (err: unknown) => next(err),
    );
  };
}
