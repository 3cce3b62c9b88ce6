import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statusPage } from './status-page';

describe('status page files', () => {
  let dir: string;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'status-page-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="/ui/assets/main-ABC123.js"></script>');
    writeFileSync(join(dir, 'assets', 'main-ABC123.js'), 'console.log(1)');
    writeFileSync(join(dir, 'assets', 'notes.txt'), 'not an asset type');
    const serve = statusPage(dir);
    server = createServer((req, res) => serve(req, res, () => res.writeHead(404).end('next')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['/', '/ui', '/ui/', '/status'])('serves index.html at %s, revalidated on every load, with a strict CSP', async (path) => {
    const res = await fetch(`${url}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await res.text()).toContain('main-ABC123.js');
    const again = await fetch(`${url}${path}`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('serves hashed assets as immutable, and passes anything else on', async () => {
    const res = await fetch(`${url}/ui/assets/main-ABC123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await res.text()).toBe('console.log(1)');
    for (const path of ['/ui/assets/notes.txt', '/ui/assets/../index.html', '/ui/assets/missing.js', '/api/v1/clusters']) {
      expect(await (await fetch(`${url}${path}`)).text()).toBe('next');
    }
    expect((await fetch(`${url}/`, { method: 'POST' })).status).toBe(404);
  });

  it('says how to build the page when it is missing', async () => {
    const serve = statusPage(undefined);
    const missing = createServer((req, res) => serve(req, res, () => res.writeHead(404).end()));
    await new Promise<void>((r) => missing.listen(0, '127.0.0.1', r));
    const res = await fetch(`http://127.0.0.1:${(missing.address() as { port: number }).port}/`);
    missing.close();
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run build');
  });
});
