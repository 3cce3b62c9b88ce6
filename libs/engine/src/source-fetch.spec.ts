import { AuthError, RegistryAbortedError, RegistryClient } from '@flotilla/oci';
import { ResolveError, FetchError } from './errors';
import { RegistryClients } from './registry-clients';
import { SourceCache, resolveTag, sourceReference } from './source-fetch';
import { pushProject, registryClient, registryHost, unique } from '../testdata/harness';
import { harnessEnv } from '../../../test/harness/env';

describe('sourceReference', () => {
  it('adds the tag to the repository', () => {
    expect(sourceReference('oci://127.0.0.1:5000/team/app', 'v1')).toEqual({ registry: '127.0.0.1:5000', repository: 'team/app', tag: 'v1' });
  });

  it('refuses a repository that already names a tag', () => {
    expect(() => sourceReference('oci://127.0.0.1:5000/team/app:v1', 'v2')).toThrow(ResolveError);
    expect(() => sourceReference('oci://127.0.0.1:5000/team/app:v1', 'v2')).toThrow('must not carry a tag or digest');
  });
});

describe('resolve and fetch (harness registry)', () => {
  it('resolves the tag, fetches once per digest, shares concurrent fetches', async () => {
    const client = registryClient();
    const repo = `oci://${registryHost()}/projects/${unique('src')}`;
    const pushed = await pushProject(client, repo, { 'project.cue': 'project: {}\n', 'app/bundle.cue': 'bundle: {}\n' });
    const digest = await resolveTag(client, repo, 'latest');
    expect(digest).toBe(pushed);

    const cache = new SourceCache();
    const [a, b] = await Promise.all([cache.fetch(client, repo, digest), cache.fetch(client, repo, digest)]);
    expect(a).toBe(b);
    expect(Object.keys(a).sort()).toEqual(['app/bundle.cue', 'project.cue']);
    expect(Buffer.from(a['project.cue']).toString()).toBe('project: {}\n');
    await cache.fetch(client, repo, digest);
    expect(cache.pulls).toBe(1);
  });

  it('a missing tag is a retryable ResolveError naming the reference', async () => {
    const err = await resolveTag(registryClient(), `oci://${registryHost()}/projects/${unique('none')}`, 'v9').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResolveError);
    expect((err as ResolveError).retryable).toBe(true);
    expect((err as Error).message).toContain(':v9');
  });

  it('a digest the registry does not have is a FetchError and is not cached', async () => {
    const cache = new SourceCache();
    const repo = `oci://${registryHost()}/projects/${unique('gone')}`;
    const digest = `sha256:${'0'.repeat(64)}`;
    await expect(cache.fetch(registryClient(), repo, digest)).rejects.toBeInstanceOf(FetchError);
    await expect(cache.fetch(registryClient(), repo, digest)).rejects.toBeInstanceOf(FetchError);
    expect(cache.pulls).toBe(2);
  });
});

describe('bounded by bytes (harness registry)', () => {
  const client = registryClient();
  /** A project artifact of about `kib` KiB of files; returns its repository and digest. */
  async function project(kib: number): Promise<{ repo: string; digest: string }> {
    const repo = `oci://${registryHost()}/projects/${unique('sized')}`;
    const digest = await pushProject(client, repo, { 'project.cue': 'project: {}\n', 'data.txt': 'x'.repeat(kib * 1024) });
    return { repo, digest };
  }

  it('evicts the least recently used artifacts once their files pass maxBytes', async () => {
    const [a, b, c] = [await project(10), await project(10), await project(10)];
    const cache = new SourceCache({ maxBytes: 25 * 1024 });
    await cache.fetch(client, a!.repo, a!.digest);
    await cache.fetch(client, b!.repo, b!.digest);
    await cache.fetch(client, a!.repo, a!.digest); // a is now more recent than b
    expect(cache.stats()).toMatchObject({ entries: 2, pulls: 2, evicted: 0 });
    await cache.fetch(client, c!.repo, c!.digest);
    expect(cache.stats()).toMatchObject({ entries: 2, pulls: 3, evicted: 1 });
    expect(cache.stats().bytes).toBeGreaterThan(20 * 1024);
    expect(cache.stats().bytes).toBeLessThanOrEqual(25 * 1024);
    await cache.fetch(client, a!.repo, a!.digest);
    expect(cache.pulls).toBe(3);
    await cache.fetch(client, b!.repo, b!.digest);
    expect(cache.pulls).toBe(4);
  });

  it('serves an artifact larger than the whole bound without keeping it or evicting others', async () => {
    const [small, big] = [await project(4), await project(40)];
    const cache = new SourceCache({ maxBytes: 20 * 1024 });
    await cache.fetch(client, small!.repo, small!.digest);
    const files = await cache.fetch(client, big!.repo, big!.digest);
    expect(Buffer.from(files['data.txt']!).length).toBe(40 * 1024);
    expect(cache.stats()).toMatchObject({ entries: 1, evicted: 1 });
    await cache.fetch(client, small!.repo, small!.digest);
    expect(cache.pulls).toBe(2);
  });

  it("ends the pull when the caller's signal is aborted", async () => {
    const { repo, digest } = await project(1);
    const cache = new SourceCache();
    const err = await cache.fetch(client, repo, digest, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as Error).cause).toBeInstanceOf(RegistryAbortedError);
    expect(cache.stats().entries).toBe(0);
  });
});

describe('tenants stay apart (basic-auth harness registry)', () => {
  const { registryAuth } = harnessEnv();
  const right = { kind: 'basic' as const, username: registryAuth.username, password: registryAuth.password };
  const wrong = { kind: 'basic' as const, username: registryAuth.username, password: 'not-the-password' };
  const clients = new RegistryClients();
  const owner = clients.get({ source: right, fingerprint: 'owner' });
  let repo: string;
  let digest: string;

  beforeAll(async () => {
    repo = `oci://${registryHost(true)}/private/${unique('tenant')}`;
    digest = await pushProject(owner, repo, { 'project.cue': 'project: {}\n', 'secret.cue': 'secret: "tenant a"\n' });
  });

  it('refuses cached content to a client the registry refuses, with the registry error', async () => {
    const cache = new SourceCache();
    await cache.fetch(owner, repo, digest);
    const intruder = clients.get({ source: wrong, fingerprint: 'intruder' });
    const err = await cache.fetch(intruder, repo, digest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as Error).cause).toBeInstanceOf(AuthError);
    expect((err as Error).message).toContain(digest);
    await expect(cache.fetch(registryClient(), repo, digest)).rejects.toBeInstanceOf(FetchError);
    expect(cache.pulls).toBe(1);
  });

  it('refuses a client that asks while the owner is still pulling', async () => {
    const cache = new SourceCache();
    const intruder = new RegistryClient({ credentials: wrong, identity: 'intruder' });
    const [mine, theirs] = await Promise.allSettled([cache.fetch(owner, repo, digest), cache.fetch(intruder, repo, digest)]);
    expect(mine.status).toBe('fulfilled');
    expect(theirs).toMatchObject({ status: 'rejected', reason: expect.any(FetchError) });
  });

  it('checks each credential identity once per TTL; the same identity is not asked again', async () => {
    let now = 1_000_000;
    const cache = new SourceCache({ accessTtlMs: 60_000, now: () => now });
    const files = await cache.fetch(owner, repo, digest);
    // Another client object with the owner's credential identity: trusted without a request.
    await cache.fetch(new RegistryClient({ credentials: right, identity: 'owner' }), repo, digest);
    expect(cache.stats().accessChecks).toBe(0);
    // Another identity, even with valid credentials, is checked, then trusted for the TTL.
    const colleague = clients.get({ source: right, fingerprint: 'colleague' });
    expect(await cache.fetch(colleague, repo, digest)).toBe(files);
    await cache.fetch(colleague, repo, digest);
    expect(cache.stats().accessChecks).toBe(1);
    now += 60_001;
    await cache.fetch(colleague, repo, digest);
    await cache.fetch(owner, repo, digest);
    expect(cache.stats()).toMatchObject({ accessChecks: 3, pulls: 1 });
  });
});
