// Serves the status page built by apps/ui/build.mjs: index.html at / and /ui
// (no-cache, so a new build shows at the next load) and the hashed assets
// under /ui/assets/ (cached for a year: a new build has new names). Files are
// read once at start; nothing is fetched from elsewhere at run time.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** The page loads only its own scripts and styles and talks only to this hub. */
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

function asset(body: Buffer, type: string): Asset {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** dist/ui beside the compiled hub (dist/apps/hub/src/status-page → dist/ui), or the repository's dist/ui when run from source. */
export function defaultStatusPageDir(): string | undefined {
  return [join(__dirname, '../../../../ui'), join(__dirname, '../../../../dist/ui')].find((dir) => existsSync(join(dir, 'index.html')));
}

function load(dir: string | undefined): { index: Asset; assets: Map<string, Asset> } | undefined {
  if (!dir) return undefined;
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(join(dir, 'assets'))) {
    const type = TYPES[extname(name)];
    if (type) assets.set(name, asset(readFileSync(join(dir, 'assets', name)), type));
  }
  return { index: asset(readFileSync(join(dir, 'index.html')), 'text/html; charset=utf-8'), assets };
}

function send(req: IncomingMessage, res: ServerResponse, file: Asset, cacheControl: string): void {
  res.setHeader('cache-control', cacheControl);
  res.setHeader('etag', file.etag);
  res.setHeader('content-type', file.type);
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
  if (req.headers['if-none-match'] === file.etag) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.setHeader('content-length', file.body.length);
  res.end(req.method === 'HEAD' ? undefined : file.body);
}

/** Express middleware for the page's routes; every other request passes on. */
export function statusPage(dir: string | undefined): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  const page = load(dir);
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/' || path === '/ui' || path === '/ui/' || path === '/status') {
      if (!page) {
        res.statusCode = 503;
        res.setHeader('content-type', 'text/plain; charset=utf-8');
        res.end('The status page is not built: run `npm run build`.\n');
        return;
      }
      return send(req, res, page.index, 'no-cache');
    }
    const file = path.startsWith('/ui/assets/') ? page?.assets.get(path.slice('/ui/assets/'.length)) : undefined;
    if (file) return send(req, res, file, 'public, max-age=31536000, immutable');
    next();
  };
}
