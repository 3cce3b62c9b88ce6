// A real HTTP listener on loopback standing in for an attacker's server: it
// records every request (method, path, Authorization and other headers) and
// answers each with `answer` (default 404), so suites can assert which
// secrets reached it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  headers: IncomingMessage['headers'];
}

export interface RecordingListener {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `127.0.0.1:<port>` */
  host: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startRecordingListener(answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(404).end()): Promise<RecordingListener> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, headers: req.headers });
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
