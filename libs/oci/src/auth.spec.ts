// The bearer flow against a token endpoint the spec serves in front of the harness registry.
import { randomBytes } from 'node:crypto';
import { registries, uniqueRepo } from '../testdata/helpers';
import { startTokenProxy, type TokenProxy } from '../testdata/token-proxy';
import { startRecordingListener } from '../../../test/harness/recording-listener';
import { Authenticator } from './auth';
import { AuthError } from './errors';
import { RegistryClient } from './registry-client';

describe('bearer token flow', () => {
  const { plain } = registries();
  let proxy: TokenProxy;
  beforeAll(async () => {
    proxy = await startTokenProxy({ upstream: plain.host, username: 'robot', password: 'pw', expiresIn: 300 });
  });
  afterAll(() => proxy.close());

  it('gets a token per scope after the challenge, caches it, and pushes and pulls through it', async () => {
    const client = new RegistryClient({ credentials: { kind: 'basic', username: 'robot', password: 'pw' } });
    const repo = { registry: proxy.host, repository: uniqueRepo('bearer/app') };
    const before = proxy.tokenRequests.length;
    const data = randomBytes(2048);
    const pushed = await client.pushBlob(repo, data, { chunkSize: 1000 });
    expect(await client.blobExists(repo, pushed.digest)).toBe(true);
    for (let i = 0; i < 3; i++) await client.blobExists(repo, pushed.digest);
    const scopes = proxy.tokenRequests.slice(before);
    // One token for pull (HEAD checks), one for pull,push (upload): reused for every later request.
    expect(scopes).toEqual([[`repository:${repo.repository}:pull`], [`repository:${repo.repository}:pull,push`]]);
    expect(await client.tokenRequests(proxy.host)).toBe(2);
  });

  it('asks for both repositories when mounting', async () => {
    const client = new RegistryClient({ credentials: { kind: 'basic', username: 'robot', password: 'pw' } });
    const from = { registry: proxy.host, repository: uniqueRepo('bearer/from') };
    const to = { registry: proxy.host, repository: uniqueRepo('bearer/to') };
    const pushed = await client.pushBlob(from, randomBytes(100));
    expect(await client.mountBlob(to, pushed.digest, from.repository)).toBe(true);
    expect(proxy.tokenRequests.at(-1)?.sort()).toEqual([`repository:${from.repository}:pull`, `repository:${to.repository}:pull,push`].sort());
  });

  it('never sends the credentials to a token realm on another host', async () => {
    const attacker = await startRecordingListener((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"t"}'));
    const elsewhere = await startTokenProxy({ upstream: plain.host, username: 'robot', password: 'pw', expiresIn: 300, realm: `${attacker.url}/token` });
    try {
      const client = new RegistryClient({ credentials: { kind: 'basic', username: 'robot', password: 'pw' } });
      const err = await client.listTags({ registry: elsewhere.host, repository: 'bearer/x' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthError);
      expect((err as Error).message).toContain(`bearer realm ${attacker.url} is on another host`);
      expect(elsewhere.challenged).toBeGreaterThan(0);
      expect(attacker.requests).toEqual([]);
    } finally {
      await elsewhere.close();
      await attacker.close();
    }
  });

  it('names the failure when the token endpoint refuses the credentials', async () => {
    const client = new RegistryClient({ credentials: { kind: 'basic', username: 'robot', password: 'nope' } });
    const err = await client.listTags({ registry: proxy.host, repository: 'bearer/x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as Error).message).toContain('token endpoint answered 401');
  });

  it('fetches a new token once the cached one expires', async () => {
    let now = Date.now();
    const auth = new Authenticator({
      registry: proxy.host,
      credentials: { kind: 'basic', username: 'robot', password: 'pw' },
      userAgent: 'spec',
      fetch,
      now: () => now,
    });
    auth.learn({ scheme: 'bearer', params: { realm: `http://${proxy.host}/token`, service: 'flotilla-test' } });
    const scope = ['repository:a/b:pull'];
    const first = await auth.header(scope);
    expect(await auth.header(scope)).toBe(first);
    now += 301_000;
    const second = await auth.header(scope);
    expect(second).not.toBe(first);
    expect(auth.tokenRequests).toBe(2);
  });

  it('shares one token request among concurrent requests of a scope', async () => {
    const auth = new Authenticator({ registry: proxy.host, credentials: { kind: 'basic', username: 'robot', password: 'pw' }, userAgent: 'spec', fetch });
    auth.learn({ scheme: 'bearer', params: { realm: `http://${proxy.host}/token` } });
    const headers = await Promise.all(Array.from({ length: 5 }, () => auth.header(['repository:c/d:pull'])));
    expect(new Set(headers).size).toBe(1);
    expect(auth.tokenRequests).toBe(1);
  });

  it('accepts OAuth2 style access_token answers and anonymous token requests', async () => {
    const oauth = await startTokenProxy({ upstream: plain.host, username: '', password: '', expiresIn: 60, accessTokenField: true });
    try {
      const auth = new Authenticator({ registry: oauth.host, credentials: { kind: 'anonymous' }, userAgent: 'spec', fetch });
      auth.learn({ scheme: 'bearer', params: { realm: `http://${oauth.host}/token` } });
      const header = await auth.header(['repository:e/f:pull']);
      expect(header).toMatch(/^Bearer [a-f0-9]{32}$/);
      expect(oauth.tokenRequests).toEqual([['repository:e/f:pull']]);
      const client = new RegistryClient();
      const repo = { registry: oauth.host, repository: uniqueRepo('bearer/anon') };
      const pushed = await client.pushBlob(repo, randomBytes(64));
      expect(await client.blobExists(repo, pushed.digest)).toBe(true);
    } finally {
      await oauth.close();
    }
  });
});
