import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { egressFetch } from './egress-fetch';
import { EgressPolicy } from './egress-policy';
import { EgressRefusedError } from './errors';

/** A real listener on loopback that counts the connections it accepted. */
async function listener(): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((_req, res) => res.end('hello'));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

function causeOf(err: unknown): unknown {
  let c = err;
  for (let i = 0; i < 5 && c && !(c instanceof EgressRefusedError); i++) c = (c as { cause?: unknown }).cause;
  return c;
}

describe('egressFetch', () => {
  let srv: Awaited<ReturnType<typeof listener>>;
  beforeAll(async () => (srv = await listener()));
  afterAll(() => new Promise((resolve) => srv.server.close(resolve)));

  it('connects where the policy allows', async () => {
    const f = egressFetch(new EgressPolicy({ allow: [], deny: [], allowLoopback: true }));
    try {
      const res = await f.fetch(`http://127.0.0.1:${srv.port}/`);
      expect(await res.text()).toBe('hello');
    } finally {
      await f.close();
    }
  });

  it('refuses an IP literal before connecting', async () => {
    const f = egressFetch(new EgressPolicy({ allow: [], deny: [], allowLoopback: false }));
    const before = srv.connections();
    try {
      const err = await f.fetch(`http://127.0.0.1:${srv.port}/`).catch((e: unknown) => e);
      expect(causeOf(err)).toBeInstanceOf(EgressRefusedError);
      expect((causeOf(err) as Error).message).toBe('connection to 127.0.0.1 refused by the egress policy: 127.0.0.1 is loopback, which the egress policy does not allow');
      expect(srv.connections()).toBe(before);
    } finally {
      await f.close();
    }
  });

  it('checks the address a name resolves to, in the lookup the socket connects with', async () => {
    // localhost passes the name check and resolves to a denied address
    const f = egressFetch(new EgressPolicy({ allow: [], deny: ['127.0.0.0/8', '::1'], allowLoopback: true }));
    const before = srv.connections();
    try {
      const err = await f.fetch(`http://localhost:${srv.port}/`).catch((e: unknown) => e);
      expect(causeOf(err)).toBeInstanceOf(EgressRefusedError);
      expect((causeOf(err) as EgressRefusedError).address).toMatch(/^(127\.0\.0\.1|::1)$/);
      expect(srv.connections()).toBe(before);
    } finally {
      await f.close();
    }
  });

  it('refuses plain http to a non-loopback host when credentials go with it, before resolving', async () => {
    const f = egressFetch(EgressPolicy.allowAll(), { plainHttpLoopbackOnly: true });
    try {
      const err = await f.fetch('http://192.0.2.1:6443/').catch((e: unknown) => e);
      expect((causeOf(err) as Error).message).toBe('connection to 192.0.2.1 refused by the egress policy: plain http:// with credentials is only allowed to loopback; use https://');
      const ok = await f.fetch(`http://127.0.0.1:${srv.port}/`);
      expect(await ok.text()).toBe('hello');
    } finally {
      await f.close();
    }
  });
});
