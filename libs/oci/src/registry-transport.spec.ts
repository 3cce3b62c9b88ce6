import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthError, InsecureRegistryError, RegistryError } from './errors';
import { RegistryTransport } from './registry-transport';

function transport(fetchImpl: typeof fetch, insecure = false, responseTimeoutMs = 5000) {
  return new RegistryTransport({ credentials: { kind: 'basic', username: 'u', password: 'p' }, insecure, userAgent: 'spec', responseTimeoutMs, fetch: fetchImpl });
}

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
    await t.send('r.example.com', { method: 'GET', path: '/v2/', scopes: [], ok: [200] });
    // The challenge is remembered: the next request authenticates up front.
    await t.send('r.example.com', { method: 'GET', path: '/v2/', scopes: [], ok: [200] });
    expect(seen).toEqual([undefined, `Basic ${Buffer.from('u:p').toString('base64')}`, `Basic ${Buffer.from('u:p').toString('base64')}`]);
  });

  it('fails with AuthError on a 401 without a usable challenge', async () => {
    const t = transport(async () => new Response(null, { status: 401, headers: { 'www-authenticate': 'Negotiate' } }));
    await expect(t.send('r.example.com', { method: 'GET', path: '/v2/', scopes: [], ok: [200] })).rejects.toThrow(AuthError);
  });

  it('turns distribution error bodies into RegistryError with the code', async () => {
    const t = transport(async () => new Response('{"errors":[{"code":"NAME_UNKNOWN","message":"repository name not known"}]}', { status: 404 }));
    const err = await t.send('r.example.com', { method: 'GET', path: '/v2/x/tags/list', scopes: [], ok: [200] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryError);
    expect(err).toMatchObject({ status: 404, code: 'NAME_UNKNOWN', message: expect.stringContaining('repository name not known') });
  });

  it('refuses absolute plain-HTTP URLs to other hosts', async () => {
    await expect(transport(fetch).send('r.example.com', { method: 'GET', path: 'http://other.example.com/x', scopes: [], ok: [200] })).rejects.toThrow(InsecureRegistryError);
  });

  it('gives up on a registry that never answers', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const started = Date.now();
      const err = await transport(fetch, false, 200).send(host, { method: 'GET', path: '/v2/', scopes: [], ok: [200] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RegistryError);
      expect((err as Error).message).toContain('no response within 200 ms');
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('wraps network failures in RegistryError with the cause', async () => {
    const t = transport(async () => {
      throw new TypeError('fetch failed');
    });
    const err = await t.send('r.example.com', { method: 'GET', path: '/v2/', scopes: [], ok: [200] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryError);
    expect((err as Error).cause).toBeInstanceOf(TypeError);
  });
});
