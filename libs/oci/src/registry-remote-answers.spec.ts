// What of a registry's (or token realm's) answer reaches users: a real listener on
// loopback plays a registry host that names an arbitrary server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EgressPolicy, egressFetch, type EgressFetch } from '@flotilla/egress';
import { AuthError, RegistryError } from './errors';
import { parseReference } from './reference';
import { RegistryClient } from './registry-client';

const MARKER = 'SECRET-METADATA-BODY';
let server: Server;
let host: string;
let net: EgressFetch;
let realmHits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? '';
    if (url.startsWith('/token')) {
      realmHits++;
      res.writeHead(403, { 'content-type': 'text/plain' });
      return res.end(`${MARKER} `.repeat(500));
    }
    if (url.includes('/text/')) {
      res.writeHead(500, { 'content-type': 'text/html' });
      return res.end(`<html>${MARKER.repeat(500)}</html>`);
    }
    if (url.includes('/oci/')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ errors: [{ code: 'MANIFEST_UNKNOWN', message: `manifest unknown ${'x'.repeat(500)}${MARKER}` }] }));
    }
    if (url.includes('/badcode/')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ errors: [{ code: MARKER.toLowerCase(), message: 'short' }] }));
    }
    if (url.includes('/realm-local/')) {
      res.writeHead(401, { 'www-authenticate': `Bearer realm="http://${host}/token",service="r"` });
      return res.end();
    }
    // a realm off loopback over plain http: credentials must not go there
    res.writeHead(401, { 'www-authenticate': 'Bearer realm="http://10.0.0.1/token",service="r"' });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  net = egressFetch(new EgressPolicy({ allow: [], deny: [], allowLoopback: true }));
});

afterAll(async () => {
  await net.close();
  await new Promise((resolve) => server.close(resolve));
});

const basic = { kind: 'basic' as const, username: 'u', password: 'p' };

async function failure(repo: string, credentials: ConstructorParameters<typeof RegistryClient>[0] = {}): Promise<Error> {
  const client = new RegistryClient({ fetch: net.fetch, ...credentials });
  return client.getManifest(parseReference(`oci://${host}/${repo}/app:1`)).then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as Error,
  );
}

describe('registry answers in errors', () => {
  it('never echoes a body that is not a distribution error', async () => {
    const err = await failure('text');
    expect(err).toBeInstanceOf(RegistryError);
    expect(err.message).toContain(': 500');
    expect(err.message).toContain('body not shown');
    expect(err.message).not.toContain(MARKER);
  });

  it('keeps a distribution error code and a bounded message', async () => {
    const err = await failure('oci');
    expect(err).toMatchObject({ status: 404, code: 'MANIFEST_UNKNOWN' });
    expect(err.message).toContain('manifest unknown xxx');
    expect(err.message).not.toContain(MARKER);
    expect(err.message.length).toBeLessThan(400);
  });

  it('drops an error code that is not one', async () => {
    const err = await failure('badcode');
    expect((err as RegistryError).code).toBeUndefined();
    expect(err.message).not.toContain(MARKER.toLowerCase());
  });

  it('never echoes a token realm answer', async () => {
    const err = await failure('realm-local', { credentials: basic });
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toContain('token endpoint answered 403');
    expect(err.message).not.toContain(MARKER);
  });

  it('refuses to send credentials to a plain-http realm off loopback, before connecting', async () => {
    const before = realmHits;
    const err = await failure('realm-remote', { credentials: basic });
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toContain("bearer realm 'http://10.0.0.1' is plain http:// and not loopback");
    expect(realmHits).toBe(before);
  });
});
