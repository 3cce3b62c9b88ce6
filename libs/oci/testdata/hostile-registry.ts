// A loopback "registry" that misbehaves on purpose, for the deadline and size
// limit specs and the bench: it never answers, trickles a body, announces a
// huge Content-Length or streams without end. Bodies are generated as they
// are sent (with backpressure), never held in memory.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Misbehaviour {
  /** 'never': headers are never sent; 'trickle': one byte per `trickleMs`; 'flood': as fast as read. */
  body: 'never' | 'trickle' | 'flood';
  trickleMs?: number;
  /** Bytes sent in all (flood); unset is without end. */
  total?: number;
  /** Announce `total` as Content-Length (else chunked). */
  announce?: boolean;
  /** Extra headers, e.g. a bearer challenge. */
  headers?: Record<string, string>;
  status?: number;
}

export interface HostileRegistry {
  host: string;
  /** Requests seen, by path. */
  requests: string[];
  /** Resolves when the next request arrives. */
  nextRequest(): Promise<IncomingMessage>;
  close(): Promise<void>;
}

export const FLOOD_CHUNK = 64 * 1024;

/** `route` picks the behaviour per request (e.g. by path). */
export async function startHostileRegistry(route: (req: IncomingMessage) => Misbehaviour): Promise<HostileRegistry> {
  const requests: string[] = [];
  const waiting: ((req: IncomingMessage) => void)[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const chunk = Buffer.alloc(FLOOD_CHUNK, ' ');
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    waiting.splice(0).forEach((w) => w(req));
    serve(route(req), res, chunk, timers);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    nextRequest: () => new Promise((resolve) => waiting.push(resolve)),
    close: async () => {
      timers.forEach(clearInterval);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function serve(how: Misbehaviour, res: ServerResponse, chunk: Buffer, timers: Set<NodeJS.Timeout>): void {
  if (how.body === 'never') return;
  const headers: Record<string, string | number> = { 'content-type': 'application/vnd.oci.image.manifest.v1+json', ...how.headers };
  if (how.announce && how.total !== undefined) headers['content-length'] = how.total;
  res.writeHead(how.status ?? 200, headers);
  if (how.body === 'trickle') {
    const timer = setInterval(() => res.write('{'), how.trickleMs ?? 50);
    timers.add(timer);
    res.on('close', () => {
      clearInterval(timer);
      timers.delete(timer);
    });
    return;
  }
  const total = how.total ?? Infinity;
  let sent = 0;
  const pump = (): void => {
    while (!res.destroyed && sent < total) {
      const n = Math.min(chunk.length, total - sent);
      sent += n;
      if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

/**
 * A fetch whose response bodies count the bytes the client pulled from them
 * (nothing is read ahead), and the largest chunk seen.
 */
export function countingFetch(): { fetch: typeof fetch; read: () => number; largestChunk: () => number } {
  let read = 0;
  let largest = 0;
  const counted: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (!res.body) return res;
    const reader = res.body.getReader();
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          read += value.byteLength;
          largest = Math.max(largest, value.byteLength);
          controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { fetch: counted, read: () => read, largestChunk: () => largest };
}
