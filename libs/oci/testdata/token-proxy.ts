// A bearer-token front for a real registry, served by the specs themselves:
// `/token` issues tokens for the scopes asked (basic auth checked), and every
// `/v2/` request needs a token covering its repository and action, else 401
// with a Bearer challenge; accepted requests are proxied to the registry.
import { randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenProxyOptions {
  /** host:port of the upstream (unauthenticated) registry. */
  upstream: string;
  username: string;
  password: string;
  /** expires_in of issued tokens, seconds. */
  expiresIn: number;
  /** Answer tokens as `access_token` (OAuth2 style) instead of `token`. */
  accessTokenField?: boolean;
  /** The token endpoint the challenge names; default this proxy's own `/token`. */
  realm?: string;
}

export interface TokenProxy {
  host: string;
  /** Every token request's scope parameters, in order. */
  tokenRequests: string[][];
  /** Requests refused for lack of a valid token. */
  challenged: number;
  close(): Promise<void>;
}

export async function startTokenProxy(opts: TokenProxyOptions): Promise<TokenProxy> {
  const tokens = new Map<string, { scopes: string[]; expires: number }>();
  const state = { tokenRequests: [] as string[][], challenged: 0 };
  let host = '';

  const issue = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    const expected = `Basic ${Buffer.from(`${opts.username}:${opts.password}`).toString('base64')}`;
    // An empty username means the endpoint hands out anonymous tokens.
    if (opts.username !== '' && req.headers.authorization !== expected) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"details":"bad credentials"}');
      return;
    }
    const scopes = url.searchParams.getAll('scope');
    state.tokenRequests.push(scopes);
    const token = randomBytes(16).toString('hex');
    tokens.set(token, { scopes, expires: Date.now() + opts.expiresIn * 1000 });
    const body = opts.accessTokenField ? { access_token: token, expires_in: opts.expiresIn } : { token, expires_in: opts.expiresIn, issued_at: new Date().toISOString() };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const allowed = (req: IncomingMessage, url: URL): { ok: boolean; scope: string } => {
    const m = /^\/v2\/(.+?)\/(manifests|blobs|tags)\//.exec(url.pathname);
    const action = req.method === 'GET' || req.method === 'HEAD' ? 'pull' : 'push';
    const scope = m ? `repository:${m[1]}:${action === 'pull' ? 'pull' : 'pull,push'}` : '';
    const auth = req.headers.authorization ?? '';
    const grant = auth.startsWith('Bearer ') ? tokens.get(auth.slice(7)) : undefined;
    if (!grant || grant.expires < Date.now()) return { ok: false, scope };
    if (!m) return { ok: true, scope };
    const ok = grant.scopes.some((s) => {
      const [, repo, actions] = /^repository:(.+):([a-z,*]+)$/.exec(s) ?? [];
      return repo === m[1] && (actions ?? '').split(',').includes(action);
    });
    return { ok, scope };
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${host}`);
    if (url.pathname === '/token') return issue(req, res, url);
    const { ok, scope } = allowed(req, url);
    if (!ok) {
      state.challenged++;
      const challenge = `Bearer realm="${opts.realm ?? `http://${host}/token`}",service="flotilla-test"${scope ? `,scope="${scope}"` : ''}`;
      req.resume();
      res.writeHead(401, { 'www-authenticate': challenge, 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAUTHORIZED","message":"token required"}]}');
      return;
    }
    const [uhost, uport] = opts.upstream.split(':');
    const headers = { ...req.headers };
    delete headers.authorization;
    const upstream = request({ host: uhost, port: Number(uport), method: req.method, path: req.url, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    get tokenRequests() {
      return state.tokenRequests;
    },
    get challenged() {
      return state.challenged;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
