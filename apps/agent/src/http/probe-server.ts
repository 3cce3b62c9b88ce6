// /metrics, /healthz and /readyz on their own port, with node:http alone:
// no request body is ever read, and close() ends keep-alive connections too.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface ProbeServerOptions {
  host: string;
  port: number;
  metrics(): Promise<{ contentType: string; body: string }>;
  /** true, or the reason it is not */
  healthy(): true | string;
  ready(): true | string;
}

export interface ProbeServer {
  url: string;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}

export async function startProbeServer(options: ProbeServerOptions): Promise<ProbeServer> {
  const check = (res: ServerResponse, state: true | string) => (state === true ? send(res, 200, 'ok\n') : send(res, 503, `${state}\n`));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return send(res, 405, 'method not allowed\n');
    }
    if (path === '/healthz') return check(res, options.healthy());
    if (path === '/readyz') return check(res, options.ready());
    if (path === '/metrics') {
      options.metrics().then(
        (m) => send(res, 200, m.body, m.contentType),
        (err: unknown) => send(res, 500, `metrics: ${err instanceof Error ? err.message : String(err)}\n`),
      );
      return;
    }
    send(res, 404, 'not found\n');
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as { port: number };
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
