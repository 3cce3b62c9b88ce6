// Response bodies are bounded while reading: an API server (or anything posing
// as one) that announces or streams a huge body is refused without buffering it.
import { startLoopback, type Loopback } from '../testdata/loopback-server';
import { ClusterConnection } from './connection';
import { ResponseTooLargeError } from './errors';

const MiB = 1024 * 1024;
let loopback: Loopback;
let url: string;
/** bytes the endless route managed to hand to the socket */
let streamed = 0;

beforeAll(async () => {
  const chunk = Buffer.alloc(64 * 1024, ' ');
  loopback = await startLoopback((req, res) => {
    if (req.url === '/announced') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(1024 * MiB) });
      res.write('[');
      return; // never sends the rest: the client must refuse on the header alone
    }
    if (req.url === '/small') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ items: ['a'.repeat(1000)] }));
      return;
    }
    // chunked, without end, as fast as the client reads
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) streamed += chunk.length;
    };
    res.on('drain', pump);
    pump();
  });
  url = loopback.url;
});

afterAll(() => loopback.close());

describe('ClusterConnection response size limit', () => {
  const connect = () => ClusterConnection.create({ server: url, token: 't' }, { maxResponseBytes: MiB });

  it('refuses a body whose announced length is over the limit, before reading it', async () => {
    const conn = connect();
    try {
      const err = await conn.request({ method: 'GET', path: '/announced', subject: 'List/huge' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResponseTooLargeError);
      expect((err as ResponseTooLargeError).limitBytes).toBe(MiB);
      expect((err as Error).message).toMatch(/^List\/huge: GET \/announced: 200: response body larger than 1048576 bytes/);
    } finally {
      await conn.close();
    }
  });

  it('stops reading an endless body once it passes the limit', async () => {
    const conn = connect();
    try {
      const err = await conn.request({ method: 'GET', path: '/endless' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResponseTooLargeError);
      // what the server got onto the wire is the limit plus what socket buffers hold, far below a runaway read
      expect(streamed).toBeLessThan(16 * MiB);
    } finally {
      await conn.close();
    }
  });

  it('reads bodies under the limit as usual', async () => {
    const conn = connect();
    try {
      expect(await conn.request<{ items: string[] }>({ method: 'GET', path: '/small' })).toEqual({ items: ['a'.repeat(1000)] });
    } finally {
      await conn.close();
    }
  });
});
