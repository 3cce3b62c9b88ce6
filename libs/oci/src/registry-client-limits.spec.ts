// Deadlines and size limits against a misbehaving loopback registry. Nothing
// here measures time: a deadline is proven by its typed error, a size limit
// by the bytes the client pulled from the response body.
import { Authenticator } from './auth';
import { AuthError, ContentTooLargeError, RegistryAbortedError, RegistryTimeoutError } from './errors';
import { RegistryClient } from './registry-client';
import { countingFetch, startHostileRegistry, type HostileRegistry, type Misbehaviour } from '../testdata/hostile-registry';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const MiB = 1024 * 1024;

let server: HostileRegistry | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function hostile(how: Misbehaviour | ((path: string) => Misbehaviour)): Promise<HostileRegistry> {
  server = await startHostileRegistry((req) => (typeof how === 'function' ? how(req.url ?? '') : how));
  return server;
}

async function drain(stream: NodeJS.ReadableStream): Promise<number> {
  let n = 0;
  for await (const c of stream) n += (c as Buffer).length;
  return n;
}

describe('deadline of a registry request (headers and body)', () => {
  it('fails a manifest whose body trickles with RegistryTimeoutError naming the URL and the deadline', async () => {
    const { host } = await hostile({ body: 'trickle', trickleMs: 20 });
    const client = new RegistryClient({ responseTimeoutMs: 300 });
    const err = await client.getManifest({ registry: host, repository: 'slow/app', tag: 'v1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryTimeoutError);
    expect(err).toMatchObject({ timeoutMs: 300, method: 'GET', url: `http://${host}/v2/slow/app/manifests/v1` });
    expect((err as Error).message).toContain('deadline of 300 ms');
  });

  it('fails a trickling blob stream with RegistryTimeoutError', async () => {
    const { host } = await hostile({ body: 'trickle', trickleMs: 20 });
    const client = new RegistryClient({ responseTimeoutMs: 300, minBlobBytesPerSecond: 1_000_000 });
    const stream = await client.fetchBlob({ registry: host, repository: 'slow/app' }, DIGEST, 1000);
    const err = await drain(stream).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryTimeoutError);
    expect((err as RegistryTimeoutError).url).toContain(`/v2/slow/app/blobs/${DIGEST}`);
  });

  it('covers the wait for a bearer token: the request fails at its deadline', async () => {
    const { host } = await hostile((path) =>
      path.startsWith('/token')
        ? { body: 'trickle', trickleMs: 20 }
        : { body: 'flood', total: 0, status: 401, headers: { 'www-authenticate': `Bearer realm="http://${server!.host}/token",service="hostile"` } },
    );
    const err = await new RegistryClient({ responseTimeoutMs: 300 }).resolve({ registry: host, repository: 'slow/app', tag: 'v1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryTimeoutError);
  });

  it('gives a shared token request its own deadline: AuthError caused by RegistryTimeoutError', async () => {
    const { host } = await hostile({ body: 'trickle', trickleMs: 20 });
    const auth = new Authenticator({ registry: host, credentials: { kind: 'anonymous' }, userAgent: 'spec', fetch, timeoutMs: 300 });
    auth.learn({ scheme: 'bearer', params: { realm: `http://${host}/token` } });
    const err = await auth.header(['repository:a:pull']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as Error).cause).toBeInstanceOf(RegistryTimeoutError);
    expect((err as Error).message).toContain(`http://${host}/token`);
  });
});

describe("the caller's AbortSignal", () => {
  it('ends a request whose headers never come, with RegistryAbortedError carrying the reason', async () => {
    const registry = await hostile({ body: 'never' });
    const client = new RegistryClient({ responseTimeoutMs: 600_000 });
    const controller = new AbortController();
    const seen = registry.nextRequest();
    const pending = client.getManifest({ registry: registry.host, repository: 'stuck/app', tag: 'v1' }, { signal: controller.signal });
    await seen;
    const reason = new Error('run cancelled');
    controller.abort(reason);
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryAbortedError);
    expect((err as Error).cause).toBe(reason);
  });

  it('ends a blob stream in the middle of its body', async () => {
    const registry = await hostile({ body: 'trickle', trickleMs: 20 });
    const client = new RegistryClient({ responseTimeoutMs: 600_000 });
    const controller = new AbortController();
    const stream = await client.fetchBlob({ registry: registry.host, repository: 'stuck/app' }, DIGEST, undefined, { signal: controller.signal });
    // Headers are in: the body is being read when the caller gives up.
    const drained = drain(stream);
    controller.abort(new Error('shutdown'));
    await expect(drained).rejects.toBeInstanceOf(RegistryAbortedError);
  });

  it('refuses to start when the signal is already aborted', async () => {
    const registry = await hostile({ body: 'never' });
    const err = await new RegistryClient().resolve({ registry: registry.host, repository: 'a', tag: 'v1' }, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryAbortedError);
    expect(registry.requests).toEqual([]);
  });
});

describe('size limits, enforced while reading', () => {
  it('refuses a manifest on a Content-Length above the limit without reading its body', async () => {
    const { host } = await hostile({ body: 'flood', total: 1024 * MiB, announce: true });
    const counter = countingFetch();
    const client = new RegistryClient({ fetch: counter.fetch });
    const err = await client.getManifest({ registry: host, repository: 'big/app', tag: 'v1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContentTooLargeError);
    expect(err).toMatchObject({ limit: 4 * MiB, offered: 1024 * MiB, received: 0 });
    expect((err as Error).message).toContain(`${host}/big/app:v1`);
    expect(counter.read()).toBe(0);
  });

  it('stops reading an endless chunked manifest one chunk past the limit', async () => {
    const { host } = await hostile({ body: 'flood' });
    const counter = countingFetch();
    const client = new RegistryClient({ fetch: counter.fetch, maxManifestBytes: MiB });
    const err = await client.getManifest({ registry: host, repository: 'big/app', tag: 'v1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContentTooLargeError);
    expect(err).toMatchObject({ limit: MiB, offered: undefined });
    expect(counter.read()).toBeGreaterThan(MiB);
    expect(counter.read()).toBeLessThanOrEqual(MiB + counter.largestChunk());
  });

  it('stops an endless blob of unknown size at maxBlobBytes', async () => {
    const { host } = await hostile({ body: 'flood' });
    const counter = countingFetch();
    const client = new RegistryClient({ fetch: counter.fetch, maxBlobBytes: 2 * MiB });
    const stream = await client.fetchBlob({ registry: host, repository: 'big/app' }, DIGEST);
    const err = await drain(stream).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContentTooLargeError);
    expect(err).toMatchObject({ limit: 2 * MiB });
    // Readable.fromWeb may pull one chunk ahead of the limit check.
    expect(counter.read()).toBeLessThanOrEqual(2 * MiB + 2 * counter.largestChunk());
  });

  it('refuses a blob whose descriptor or Content-Length is above maxBlobBytes before reading it', async () => {
    const registry = await hostile({ body: 'flood', total: 64 * MiB, announce: true });
    const counter = countingFetch();
    const client = new RegistryClient({ fetch: counter.fetch, maxBlobBytes: MiB });
    const repo = { registry: registry.host, repository: 'big/app' };
    await expect(client.fetchBlob(repo, DIGEST, 64 * MiB)).rejects.toMatchObject({ name: 'ContentTooLargeError', offered: 64 * MiB });
    expect(registry.requests).toEqual([]);
    await expect(client.fetchBlob(repo, DIGEST)).rejects.toMatchObject({ name: 'ContentTooLargeError', offered: 64 * MiB, limit: MiB });
    expect(counter.read()).toBe(0);
  });

  it('refuses an endless token response', async () => {
    const { host } = await hostile((path) =>
      path.startsWith('/token')
        ? { body: 'flood' }
        : { body: 'flood', total: 0, status: 401, headers: { 'www-authenticate': `Bearer realm="http://${server!.host}/token"` } },
    );
    const err = await new RegistryClient({ maxTokenBytes: 4096 }).resolve({ registry: host, repository: 'a', tag: 'v1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as Error).cause).toBeInstanceOf(ContentTooLargeError);
  });
});
