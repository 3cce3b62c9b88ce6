// A sink is any URL a Project names: its answers stay out of errors and are read
// only up to a bound, and its secret header never goes out in clear off loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EgressPolicy, egressFetch } from '@flotilla/egress';
import { SinkDeliveryError } from './errors';
import { postCdevent, SINK_ANSWER_READ_LIMIT } from './sink-post';
import { specExample } from './test-support';
import type { CDEvent } from './types';

const MARKER = 'SECRET-METADATA-BODY';
const event = specExample('v0.5.1/conformance/service_deployed.json') as unknown as CDEvent;
let server: Server;
let base: string;
/** bytes the endless route handed to its socket */
let streamed = 0;
let endlessClosed: Promise<void>;

beforeAll(async () => {
  let closed: () => void;
  endlessClosed = new Promise((r) => (closed = r));
  const chunk = Buffer.from(`${MARKER} `.repeat(4096));
  server = createServer((req, res) => {
    req.resume();
    if (req.url === '/endless') {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.on('close', () => closed());
      const pump = () => {
        while (!res.destroyed) {
          streamed += chunk.length;
          if (!res.write(chunk)) break;
        }
      };
      res.on('drain', pump);
      pump();
      return;
    }
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end(`<html>${MARKER}</html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

async function failure(p: Promise<void>): Promise<SinkDeliveryError> {
  return p.then(
    () => {
      throw new Error('expected the delivery to fail');
    },
    (e: unknown) => e as SinkDeliveryError,
  );
}

describe('postCdevent', () => {
  it('reports a refusing sink by its status, never its answer', async () => {
    const err = await failure(postCdevent({ url: `${base}/html` }, event, { mode: 'binary', deadlineMs: 10_000 }));
    expect(err).toBeInstanceOf(SinkDeliveryError);
    expect(err.message).toBe(`POST ${base}/html: HTTP 502`);
  });

  it('stops reading an endless answer after a bound and fails with a short reason', async () => {
    const err = await failure(postCdevent({ url: `${base}/endless` }, event, { mode: 'binary', deadlineMs: 60_000 }));
    expect(err.message).toBe(`POST ${base}/endless: HTTP 500`);
    // the client hung up: the server saw its response closed
    await endlessClosed;
    expect(streamed).toBeGreaterThan(SINK_ANSWER_READ_LIMIT);
  });

  it('refuses a secret header over plain http off loopback, before connecting', async () => {
    const err = await failure(postCdevent({ url: 'http://10.0.0.1:8080/events', header: { name: 'authorization', value: 'Bearer s' } }, event));
    expect(err.message).toBe('POST http://10.0.0.1:8080/events: plain http:// with a secret header is only allowed to loopback; use https://');
  });

  it('goes through the egress policy of the fetch it is given', async () => {
    const net = egressFetch(new EgressPolicy({ allow: [], deny: [], allowLoopback: false }));
    try {
      const err = await failure(postCdevent({ url: `${base}/html` }, event, { mode: 'binary', deadlineMs: 10_000, fetch: net.fetch }));
      expect(err.message).toContain('refused by the egress policy: 127.0.0.1 is loopback');
    } finally {
      await net.close();
    }
  });
});
