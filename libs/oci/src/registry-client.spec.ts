// Against the harness registries (plain and htpasswd basic auth).
import { randomBytes } from 'node:crypto';
import { registries, uniqueRepo } from '../testdata/helpers';
import { sha256Digest } from './digest';
import { AuthError, DigestMismatchError, InsecureRegistryError, RegistryError } from './errors';
import { DOCKER_MANIFEST, OCI_MANIFEST, TIMONI_CONFIG, TIMONI_CONFIG_JSON } from './media-types';
import { encodeManifest } from './manifest-json';
import { RegistryClient, nextLink } from './registry-client';

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

/** Pushes a config blob and a manifest pointing at it; returns the manifest digest. */
async function pushSmallImage(client: RegistryClient, repo: { registry: string; repository: string }, tag: string, mediaType = OCI_MANIFEST): Promise<string> {
  const config = Buffer.from(TIMONI_CONFIG_JSON);
  await client.pushBlob(repo, config);
  const manifest = encodeManifest({
    schemaVersion: 2,
    mediaType,
    config: { mediaType: TIMONI_CONFIG, size: config.length, digest: sha256Digest(config) },
    layers: [],
    annotations: { tag },
  });
  return client.putManifest({ ...repo, tag }, manifest, mediaType);
}

describe('RegistryClient against the plain registry', () => {
  const { plain } = registries();
  const client = new RegistryClient();
  const repo = { registry: plain.host, repository: uniqueRepo('client/plain') };

  it('pushes a blob in one PUT, skips it when present, and streams it back verified', async () => {
    const data = randomBytes(3000);
    const first = await client.pushBlob(repo, data);
    expect(first).toMatchObject({ digest: sha256Digest(data), size: 3000, uploaded: true });
    expect((await client.pushBlob(repo, data)).uploaded).toBe(false);
    const back = await client.fetchBlob(repo, first.digest, first.size);
    const chunks: Buffer[] = [];
    for await (const c of back) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
  });

  it('pushes a blob in PATCH chunks', async () => {
    const data = randomBytes(10_000);
    const pushed = await client.pushBlob(repo, data, { chunkSize: 4096 });
    expect(pushed.uploaded).toBe(true);
    expect(await client.blobExists(repo, pushed.digest)).toBe(true);
  });

  it('resolves a tag by HEAD to the digest of the manifest bytes, and fetches them', async () => {
    const digest = await pushSmallImage(client, repo, 'v1');
    const resolved = await client.resolve({ ...repo, tag: 'v1' });
    expect(resolved).toMatchObject({ digest, mediaType: OCI_MANIFEST });
    const manifest = await client.getManifest({ ...repo, tag: 'v1' });
    expect(sha256Digest(manifest.bytes)).toBe(digest);
    expect(manifest.mediaType).toBe(OCI_MANIFEST);
    expect((await client.getManifest({ ...repo, digest })).digest).toBe(digest);
  });

  it('falls back to GET when HEAD gives no digest', async () => {
    const digest = await pushSmallImage(client, repo, 'headless');
    let heads = 0;
    const noHead = new RegistryClient({
      fetch: (input, init) => {
        if (init?.method === 'HEAD') {
          heads++;
          return Promise.resolve(new Response(null, { status: 405 }));
        }
        return fetch(input, init);
      },
    });
    expect((await noHead.resolve({ ...repo, tag: 'headless' })).digest).toBe(digest);
    expect(heads).toBe(1);
  });

  it('resolves Docker v2 manifests too', async () => {
    const digest = await pushSmallImage(client, repo, 'docker', DOCKER_MANIFEST);
    expect(await client.resolve({ ...repo, tag: 'docker' })).toMatchObject({ digest, mediaType: DOCKER_MANIFEST });
  });

  it('refuses manifest bytes that do not hash to the digest asked for', async () => {
    const digest = await pushSmallImage(client, repo, 'pinned');
    const tampering = new RegistryClient({
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (init?.method !== 'GET' || !String(input).includes('/manifests/')) return res;
        return new Response(`${await res.text()} `, { status: 200, headers: res.headers });
      },
    });
    await expect(tampering.getManifest({ ...repo, digest })).rejects.toThrow(DigestMismatchError);
  });

  it('tags an existing digest and lists tags across pages', async () => {
    const tagRepo = { registry: plain.host, repository: uniqueRepo('client/tags') };
    const digest = await pushSmallImage(client, tagRepo, 't0');
    for (const t of ['t1', 't2', 't3', 't4']) await client.tag(tagRepo, digest, t);
    const paged = new RegistryClient({ tagPageSize: 2 });
    expect((await paged.listTags(tagRepo)).sort()).toEqual(['t0', 't1', 't2', 't3', 't4']);
    expect((await client.resolve({ ...tagRepo, tag: 't4' })).digest).toBe(digest);
  });

  it('mounts a blob from another repository', async () => {
    const data = randomBytes(500);
    const pushed = await client.pushBlob(repo, data);
    const other = { registry: plain.host, repository: uniqueRepo('client/mounted') };
    expect(await client.mountBlob(other, pushed.digest, repo.repository)).toBe(true);
    expect(await client.blobExists(other, pushed.digest)).toBe(true);
    expect(await client.mountBlob(other, sha256Digest('never pushed'), repo.repository)).toBe(false);
  });

  it('names the registry error for unknown manifests', async () => {
    const err = await client.getManifest({ ...repo, tag: 'missing' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryError);
    expect(err).toMatchObject({ status: 404, code: 'MANIFEST_UNKNOWN' });
  });

  it('fails a blob stream whose content does not match its digest', async () => {
    const data = Buffer.from('real content');
    const pushed = await client.pushBlob(repo, data);
    const lying = new RegistryClient({
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        return init?.method === 'GET' && String(input).includes('/blobs/') ? new Response('fake content', { status: 200 }) : res;
      },
    });
    await expect(text(await lying.fetchBlob(repo, pushed.digest))).rejects.toThrow(DigestMismatchError);
  });
});

describe('RegistryClient against the basic-auth registry', () => {
  const { auth } = registries();
  const repo = { registry: auth.host, repository: uniqueRepo('client/auth') };

  it('answers the Basic challenge with the configured credentials', async () => {
    const client = new RegistryClient({ credentials: { kind: 'basic', username: auth.username, password: auth.password } });
    const digest = await pushSmallImage(client, repo, 'v1');
    expect((await client.resolve({ ...repo, tag: 'v1' })).digest).toBe(digest);
    expect(await client.listTags(repo)).toEqual(['v1']);
  });

  it('takes credentials from docker config content per host', async () => {
    const { dockerConfigCredentials } = await import('./docker-config');
    const config = JSON.stringify({ auths: { [`http://${auth.host}`]: { auth: Buffer.from(`${auth.username}:${auth.password}`).toString('base64') } } });
    const client = new RegistryClient({ credentials: dockerConfigCredentials(config) });
    await pushSmallImage(client, repo, 'v2');
    expect((await client.listTags(repo)).sort()).toEqual(['v1', 'v2']);
  });

  it('reports wrong or missing credentials as AuthError', async () => {
    const wrong = new RegistryClient({ credentials: { kind: 'basic', username: auth.username, password: 'wrong' } });
    await expect(wrong.listTags(repo)).rejects.toThrow(AuthError);
    await expect(new RegistryClient().listTags(repo)).rejects.toThrow(/no username\/password/);
  });
});

describe('transport policy', () => {
  it('refuses plain HTTP to a non-loopback host unless insecure', async () => {
    const seen: string[] = [];
    const spy: typeof fetch = async (input) => {
      seen.push(String(input));
      return new Response('{"tags":[]}', { status: 200 });
    };
    await new RegistryClient({ fetch: spy }).listTags({ registry: 'registry.example.com', repository: 'a' });
    await new RegistryClient({ fetch: spy, insecure: true }).listTags({ registry: 'registry.example.com', repository: 'a' });
    expect(seen).toEqual(['https://registry.example.com/v2/a/tags/list?n=100', 'http://registry.example.com/v2/a/tags/list?n=100']);
  });

  it('does not follow an upload location that downgrades to plain HTTP', async () => {
    const spy: typeof fetch = async (_input, init) =>
      init?.method === 'HEAD' ? new Response(null, { status: 404 }) : new Response(null, { status: 202, headers: { location: 'http://evil.example.com/upload' } });
    await expect(new RegistryClient({ fetch: spy }).pushBlob({ registry: 'registry.example.com', repository: 'a' }, Buffer.from('x'))).rejects.toThrow(InsecureRegistryError);
  });

  it('parses Link headers of tag pages', () => {
    expect(nextLink('</v2/a/tags/list?last=t1&n=2>; rel="next"', 'http://127.0.0.1:5000')).toBe('/v2/a/tags/list?last=t1&n=2');
    expect(nextLink(null, 'http://x')).toBeUndefined();
    expect(nextLink(' </v2/a/tags/list?n=2>;rel=next', 'http://127.0.0.1:5000')).toBe('/v2/a/tags/list?n=2');
    // a registry's header is untrusted: many "<" without ">" is read once, not from each "<"
    expect(nextLink('REL=NEXT<;'.repeat(50_000), 'http://x')).toBeUndefined();
  });
});
