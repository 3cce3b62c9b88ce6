// ClusterConnection.stream against a loopback server: lines as they arrive, an idle deadline
// that only runs while waiting for the server, a bound per line, typed errors for non-2xx.
import { startLoopback, type Loopback } from '../testdata/loopback-server';
import type { ServerResponse } from 'node:http';
import { ClusterConnection } from './connection';
import { KubeApiError, NotFoundError, ResponseTooLargeError, StreamDecodeError, StreamIdleError } from './errors';

const MiB = 1024 * 1024;
let loopback: Loopback;
let url: string;
/** the response of /held, finished by the next request to /release */
let held: ServerResponse | undefined;
const headersSeen: Array<Record<string, string | string[] | undefined>> = [];

beforeAll(async () => {
  loopback = await startLoopback((req, res) => {
    headersSeen.push(req.headers);
    const path = req.url?.split('?')[0];
    if (path === '/lines') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"n":1}\n{"n"');
      setImmediate(() => res.end(':2}\n{"n":3}'));
    } else if (path === '/silent') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"n":1}\n'); // then nothing, connection kept open
    } else if (path === '/held') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"n":1}\n');
      held = res;
    } else if (path === '/release') {
      held?.end('{"n":2}\n');
      res.end();
    } else if (path === '/long') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"n":"');
      const chunk = 'x'.repeat(64 * 1024);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      pump();
    } else if (path === '/garbage') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('not json\n');
    } else if (path === '/gone') {
      res.writeHead(410, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version' }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', reason: 'NotFound', code: 404, message: 'nothing here' }));
    }
  });
  url = loopback.url;
});

afterAll(() => loopback.close());

async function collect(iter: AsyncIterable<unknown>, seen: unknown[] = []): Promise<unknown[]> {
  for await (const v of iter) seen.push(v);
  return seen;
}

describe('ClusterConnection.stream', () => {
  const connect = () => ClusterConnection.create({ server: url, token: 'tok' });

  it('yields each JSON line as it arrives, with auth, impersonation and query', async () => {
    const conn = connect().impersonate({ user: 'bob', groups: ['g1', 'g2'] });
    try {
      expect(await collect(conn.stream({ method: 'GET', path: '/lines', query: { watch: 1, labelSelector: undefined } }))).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      const h = headersSeen[headersSeen.length - 1];
      expect(h.authorization).toBe('Bearer tok');
      expect(h['impersonate-user']).toBe('bob');
    } finally {
      await conn.close();
    }
  });

  it('ends with StreamIdleError when the server sends no bytes for the idle deadline', async () => {
    const conn = connect();
    try {
      const seen: unknown[] = [];
      const err = await collect(conn.stream({ method: 'GET', path: '/silent', idleTimeoutMs: 200, subject: 'ConfigMap watch' }), seen).catch((e: unknown) => e);
      expect(seen).toEqual([{ n: 1 }]);
      expect(err).toBeInstanceOf(StreamIdleError);
      expect((err as Error).message).toMatch(/^ConfigMap watch: GET \/silent: no response: no bytes for 200ms/);
    } finally {
      await conn.close();
    }
  });

  it('does not count the time the consumer spends between lines as idle', async () => {
    const conn = connect();
    try {
      const seen: unknown[] = [];
      for await (const v of conn.stream({ method: 'GET', path: '/held', idleTimeoutMs: 1000 })) {
        seen.push(v);
        if (seen.length === 1) {
          // a slow handler: longer than the idle deadline, while the server has nothing to send
          await new Promise((r) => setTimeout(r, 1500));
          await fetch(`${url}/release`);
        }
      }
      expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
    } finally {
      await conn.close();
    }
  });

  it('refuses a line longer than maxLineBytes while reading it', async () => {
    const conn = connect();
    try {
      const err = await collect(conn.stream({ method: 'GET', path: '/long', maxLineBytes: MiB })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResponseTooLargeError);
      expect((err as Error).message).toMatch(/stream line larger than 1048576 bytes/);
    } finally {
      await conn.close();
    }
  });

  it('throws StreamDecodeError for a line that is not JSON', async () => {
    const conn = connect();
    try {
      expect(await collect(conn.stream({ method: 'GET', path: '/garbage' })).catch((e: unknown) => e)).toBeInstanceOf(StreamDecodeError);
    } finally {
      await conn.close();
    }
  });

  it('throws the typed API errors of request() for non-2xx answers', async () => {
    const conn = connect();
    try {
      const gone = await collect(conn.stream({ method: 'GET', path: '/gone' })).catch((e: unknown) => e);
      expect(gone).toBeInstanceOf(KubeApiError);
      expect((gone as KubeApiError).statusCode).toBe(410);
      expect((gone as KubeApiError).reason).toBe('Expired');
      expect(await collect(conn.stream({ method: 'GET', path: '/missing' })).catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
    } finally {
      await conn.close();
    }
  });

  it('stops when the view signal aborts', async () => {
    const base = connect();
    const ac = new AbortController();
    try {
      const seen: unknown[] = [];
      const err = await (async () => {
        for await (const v of base.withSignal(ac.signal).stream({ method: 'GET', path: '/silent' })) {
          seen.push(v);
          ac.abort(new Error('stop'));
        }
      })().catch((e: unknown) => e);
      expect(seen).toEqual([{ n: 1 }]);
      expect(err).toBeInstanceOf(KubeApiError);
    } finally {
      await base.close();
    }
  });
});
