import { ResolveError, FetchError } from './errors';
import { SourceCache, resolveTag, sourceReference } from './source-fetch';
import { pushProject, registryClient, registryHost, unique } from '../testdata/harness';

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
