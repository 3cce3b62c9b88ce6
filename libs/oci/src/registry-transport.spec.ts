import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthError, InsecureRegistryError, RegistryError, RegistryTimeoutError } from './errors';
import { RegistryTransport } from './registry-transport';
import { RequestDeadline } from './request-deadline';

function transport(fetchImpl: typeof fetch, insecure = false) {
  return new RegistryTransport({ credentials: { kind: 'basic', username: 'u', password: 'p' }, insecure, userAgent: 'spec', responseTimeoutMs: 5000, maxTokenBytes: 65536, fetch: fetchImpl });
}

/** Deadlines are never reached here except where a spec sets a short one on purpose. */
const deadlines: RequestDeadline[] = [];
function deadline(ms = 60_000): RequestDeadline {
  const d = new RequestDeadline('GET', 'spec request', ms);
  deadlines.push(d);
  return d;
}
afterEach(() => deadlines.splice(0).forEach((d) => d.clear()));

describe('RegistryTransport', () => {
  it('chooses HTTPS except for loopback hosts or when insecure', () => {
    const t = transport(fetch);
    expect(t.baseUrl('r.example.com')).toBe('https://r.example.com');
    expect(t.baseUrl('127.0.0.1:5000')).toBe('http://127.0.0.1:5000');
    expect(transport(fetch, true).baseUrl('r.example.com')).toBe('http://r.example.com');
  });

  it('retries once with credentials after a Basic challenge and sends the user agent', async () => {
    const seen: (string | undefined)[] = [];
    const t = transport(async (_url, init) => {
      const headers = init?.headers as Record<string, string>;
      seen.push(headers.authorization);
      expect(headers['user-agent']).toBe('spec');
      return headers.authorization
        ? new Response('{}', { status: 200 })
        : new Response(null, { status: 401, headers: { 'www-authenticate': 'Basic realm="r"' } });
    });
    await t.send('r.example.com', { method: 'GET', path: '/v2/', scopes: [], ok: [200], deadline: deadline() });
    // The challenge is remembered: the next request authenticates up front.
    await t.send('r.example.com', { method: 'GET', path: '/v2/', scopes: [], ok: [200], deadline: deadline() });
    expect(seen).toEqual([undefined, `Basic ${Buffer.from('u:p').toString('base64')}`, `Basic ${Buffer.from('u:p').toString('base64')}`]);
  });

  it('fails with AuthError on a 401 without a usable challenge', async () => {
    const t = transport(async () => new Response(null, { status: 401, headers: { 'www-authenticate': 'Negotiate' } }));
    await expect(t.send('r.example.com', { method: 'GET', path: '/v2/', scopes: [], ok: [200], deadline: deadline() })).rejects.toThrow(AuthError);
  });

  it('turns distribution error bodies into RegistryError with the code', async () => {
    const t = transport(async () => new Response('{"errors":[{"code":"NAME_UNKNOWN","message":"repository name not known"}]}', { status: 404 }));
    const err = await t.send('r.example.com', { method: 'GET', path: '/v2/x/tags/list', scopes: [], ok: [200], deadline: deadline() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryError);
    expect(err).toMatchObject({ status: 404, code: 'NAME_UNKNOWN', message: expect.stringContaining('repository name not known') });
  });

  it('refuses absolute plain-HTTP URLs to other hosts', async () => {
    await expect(transport(fetch).send('r.example.com', { method: 'GET', path: 'http://other.example.com/x', scopes: [], ok: [200], deadline: deadline() })).rejects.toThrow(InsecureRegistryError);
  });

  it('gives up on a registry that never answers', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const err = await transport(fetch).send(host, { method: 'GET', path: '/v2/', scopes: [], ok: [200], deadline: deadline(200) }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RegistryTimeoutError);
      expect(err).toBeInstanceOf(RegistryError);
      expect((err as Error).message).toContain('deadline of 200 ms');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('follows redirects, sending credentials only to the registry origin and never downgrading to plain HTTP', async () => {
    const seen: { host: string; auth?: string }[] = [];
    const storage = createServer((req, res) => {
      seen.push({ host: 'storage', auth: req.headers.authorization });
      res.end('blob');
    });
    const registry = createServer((req, res) => {
      seen.push({ host: 'registry', auth: req.headers.authorization });
      if (!req.headers.authorization) return void res.writeHead(401, { 'www-authenticate': 'Basic realm="r"' }).end();
      const to = req.url === '/v2/a/blobs/down' ? 'http://10.255.255.1/blob' : `http://127.0.0.1:${(storage.address() as AddressInfo).port}/blob`;
      res.writeHead(307, { location: to }).end();
    });
    for (const s of [storage, registry]) await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(registry.address() as AddressInfo).port}`;
    try {
      const t = transport(fetch);
      const res = await t.send(host, { method: 'GET', path: '/v2/a/blobs/x', scopes: [], ok: [200], deadline: deadline() });
      expect(await res.text()).toBe('blob');
      expect(seen.map((s) => [s.host, Boolean(s.auth)])).toEqual([
        ['registry', false],
        ['registry', true],
        ['storage', false],
      ]);
      await expect(t.send(host, { method: 'GET', path: '/v2/a/blobs/down', scopes: [], ok: [200], deadline: deadline() })).rejects.toThrow(InsecureRegistryError);
    } finally {
      storage.close();
      registry.close();
    }
  });

  it('wraps network failures in RegistryError with the cause', async () => {
    const t = transport(async () => {
      throw new TypeError('fetch failed');
    });
    const err = await t.send('r.example.com', { method: 'GET', path: '/v2/', scopes: [], ok: [200], deadline: deadline() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryError);
    expect((err as Error).cause).toBeInstanceOf(TypeError);
  });
});
