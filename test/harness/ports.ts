import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// Ports below the kernel's ephemeral range: the OS never hands them to an
// outgoing connection, so a port found free here stays free until a test
// process binds it (an ephemeral port was once taken by a connection between
// the check and etcd's bind).
const FLOOR = 10_000;
const handedOut = new Set<number>();

let ephemeralLowCached: number | undefined;

/** The bottom of the kernel's ephemeral range, read once (0: unknown). */
function ephemeralLow(): number {
  ephemeralLowCached ??= readEphemeralLow();
  return ephemeralLowCached;
}

function readEphemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return Number.isInteger(low) ? low : 0;
  } catch {
    return 0;
  }
}

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err)));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(bound || undefined));
    });
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago and is not handed out twice by this process. */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  if (low > FLOOR + 1_000) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const candidate = FLOOR + Math.floor(Math.random() * (low - FLOOR));
      if (handedOut.has(candidate)) continue;
      const port = await tryListen(candidate);
      if (port) {
        handedOut.add(port);
        return port;
      }
    }
  }
  // no usable range below the ephemeral one (or all tries taken): let the OS pick
  const port = await tryListen(0);
  if (!port) throw new Error('could not obtain a free port');
  handedOut.add(port);
  return port;
}
