import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';

/** An HTTP server on 127.0.0.1 that plays an API server (or a misbehaving one) in specs. */
export interface Loopback {
  url: string;
  /** responses not yet closed */
  open: ReadonlySet<ServerResponse>;
  /** cuts the open responses and stops listening */
  close(): Promise<void>;
}

export async function startLoopback(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Loopback> {
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    handler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const addr = server.address();
  return {
    url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
    open,
    close: async () => {
      for (const res of open) res.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
