// A loopback TCP proxy in front of a server (the API server, a hub replica),
// for breaking connections on purpose: cut every open one, refuse new ones
// for a while, then let them through again, or send new ones elsewhere (as a
// Service does when a replica dies). TLS passes through untouched.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** `https://127.0.0.1:<port>` */
  server: string;
  /** connections accepted so far */
  readonly accepted: number;
  /** destroys every open connection and refuses new ones until `restore` */
  cut(): void;
  restore(): void;
  /** new connections go to `to` from now on; open ones stay where they are */
  retarget(to: { host: string; port: number }): void;
  close(): Promise<void>;
}

export async function startTcpProxy(initial: { host: string; port: number }): Promise<TcpProxy> {
  let target = initial;
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
    retarget(to) {
      target = to;
    },
    close() {
      refusing = true;
      for (const s of open) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
