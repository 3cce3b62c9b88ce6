// A loopback TCP proxy in front of the API server, for breaking the agent's
// connections on purpose: cut every open one, refuse new ones for a while,
// then let them through again. TLS passes through untouched.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** `https://127.0.0.1:<port>` */
  server: string;
  /** connections accepted so far */
  readonly accepted: number;
  /** destroys every open connection and refuses new ones until `restore` */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let refusing = false;
  let accepted = 0;
  const server: Server = createServer((downstream) => {
    if (refusing) {
      downstream.destroy();
      return;
    }
    accepted++;
    const upstream = connect(target.port, target.host);
    for (const s of [downstream, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => undefined);
    }
    downstream.pipe(upstream);
    upstream.pipe(downstream);
    downstream.on('close', () => upstream.destroy());
    upstream.on('close', () => downstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    server: `https://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    cut() {
      refusing = true;
      for (const s of open) s.destroy();
    },
    restore() {
      refusing = false;
    },
    close() {
      refusing = true;
      for (const s of open) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
