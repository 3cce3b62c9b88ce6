// The total deadline of a request: a server that answers headers at once and then
// trickles the body must not hold a call past it (undici's own timeouts only bound gaps).
import { startLoopback, type Loopback } from '../testdata/loopback-server';
import { ClusterConnection } from './connection';
import { KubeApiError, RequestTimeoutError } from './errors';

let loopback: Loopback;
let url: string;

beforeAll(async () => {
  loopback = await startLoopback((req, res) => {
    if (req.url === '/fast') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
      return;
    }
    // headers now, then one byte every 50 ms, never finishing the JSON document
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    const tick = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(tick));
  });
  url = loopback.url;
});

afterAll(() => loopback.close());

describe('ClusterConnection request deadline', () => {
  it('fails a trickling body with RequestTimeoutError once the connection deadline passes', async () => {
    const conn = ClusterConnection.create({ server: url, token: 't' }, { requestTimeoutMs: 300 });
    try {
      const err = await conn.request({ method: 'GET', path: '/trickle', subject: 'trickle' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RequestTimeoutError);
      expect(err).toBeInstanceOf(KubeApiError);
      expect((err as RequestTimeoutError).timeoutMs).toBe(300);
      expect((err as Error).message).toBe('trickle: GET /trickle: no response: no complete response within 300ms (request timeout)');
      // the connection stays usable
      await expect(conn.request({ method: 'GET', path: '/fast' })).resolves.toEqual({ ok: true });
    } finally {
      await conn.close();
    }
  });

  it('takes a per-request timeout over the connection default', async () => {
    const conn = ClusterConnection.create({ server: url, token: 't' });
    try {
      const err = await conn.request({ method: 'GET', path: '/trickle', timeoutMs: 300 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RequestTimeoutError);
      expect((err as RequestTimeoutError).timeoutMs).toBe(300);
    } finally {
      await conn.close();
    }
  });

  it("reports the caller's abort as the caller's, not as a timeout", async () => {
    const conn = ClusterConnection.create({ server: url, token: 't' });
    const controller = new AbortController();
    try {
      const call = conn.withSignal(controller.signal).request({ method: 'GET', path: '/trickle' }).catch((e: unknown) => e);
      // abort once the server holds the response open
      while (loopback.open.size === 0) await new Promise((r) => setImmediate(r));
      controller.abort(new Error('run cancelled'));
      const err = await call;
      expect(err).toBeInstanceOf(KubeApiError);
      expect(err).not.toBeInstanceOf(RequestTimeoutError);
      expect((err as Error).message).toContain('run cancelled');
    } finally {
      await conn.close();
    }
  });
});
