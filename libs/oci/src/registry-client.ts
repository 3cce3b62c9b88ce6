// An OCI distribution client (spec v1.1 endpoints) on Node's fetch.
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { repositoryScope } from './auth-challenge';
import { DigestVerifier, assertDigest, sha256Digest } from './digest';
import { DigestMismatchError, InvalidReferenceError, RegistryError } from './errors';
import { MANIFEST_ACCEPT, USER_AGENT } from './media-types';
import { formatReference } from './reference';
import { RegistryTransport } from './registry-transport';
import type { CredentialSource, Descriptor, FetchedManifest, Reference } from './types';

export interface RegistryClientOptions {
  /** Credentials, or a lookup by registry host (e.g. from `dockerConfigCredentials`). */
  credentials: CredentialSource;
  /** Allow plain HTTP to registries that are not loopback hosts. */
  insecure: boolean;
  userAgent: string;
  /** Upload blobs larger than this in PATCH chunks of this size; 0 uploads in one PUT. */
  chunkSize: number;
  /** Page size asked for when listing tags. */
  tagPageSize: number;
  /** Milliseconds to wait for response headers; bodies (blob streams) are not limited. */
  responseTimeoutMs: number;
  fetch: typeof fetch;
}

export function defaultRegistryClientOptions(): RegistryClientOptions {
  return {
    credentials: { kind: 'anonymous' },
    insecure: false,
    userAgent: USER_AGENT,
    chunkSize: 0,
    tagPageSize: 100,
    responseTimeoutMs: 30_000,
    fetch: globalThis.fetch,
  };
}

/** A repository: a reference's registry and repository, tag and digest ignored. */
export type RepositoryRef = Pick<Reference, 'registry' | 'repository'>;

const PULL = ['pull'] as const;
const PUSH = ['pull', 'push'] as const;

export class RegistryClient {
  readonly options: RegistryClientOptions;
  private readonly transport: RegistryTransport;

  constructor(options: Partial<RegistryClientOptions> = {}) {
    this.options = { ...defaultRegistryClientOptions(), ...options };
    this.transport = new RegistryTransport(this.options);
  }

  /** Token endpoint round trips made for a registry (bearer flow only). */
  tokenRequests(registry: string): Promise<number> {
    return this.transport.tokenRequests(registry);
  }

  /** Tag or digest → manifest descriptor, by HEAD, falling back to GET when HEAD gives no digest. */
  async resolve(ref: Reference): Promise<Descriptor> {
    const target = manifestTarget(ref);
    const res = await this.send(ref, 'HEAD', `/manifests/${target}`, PULL, { accept: MANIFEST_ACCEPT }, [200, 404, 405]);
    const digest = res.headers.get('docker-content-digest');
    const mediaType = res.headers.get('content-type')?.split(';')[0];
    const length = res.headers.get('content-length');
    const size = Number(length);
    if (res.status === 200 && digest && mediaType && length !== null && Number.isInteger(size)) {
      if (ref.digest && digest !== ref.digest) throw new DigestMismatchError(ref.digest, digest, formatReference(ref));
      return { mediaType, digest: assertDigest(digest), size };
    }
    const manifest = await this.getManifest(ref);
    return { mediaType: manifest.mediaType, digest: manifest.digest, size: manifest.bytes.length };
  }

  /** The manifest as served; its digest is the sha256 of those bytes and is checked against a pinned digest. */
  async getManifest(ref: Reference): Promise<FetchedManifest> {
    const res = await this.send(ref, 'GET', `/manifests/${manifestTarget(ref)}`, PULL, { accept: MANIFEST_ACCEPT }, [200]);
    const bytes = Buffer.from(await res.arrayBuffer());
    const digest = sha256Digest(bytes);
    if (ref.digest && digest !== ref.digest) throw new DigestMismatchError(ref.digest, digest, formatReference(ref));
    const mediaType = res.headers.get('content-type')?.split(';')[0] ?? mediaTypeOf(bytes);
    return { digest, mediaType, bytes };
  }

  /** Pushes manifest bytes under a tag or their digest; returns the digest. */
  async putManifest(ref: Reference, bytes: Buffer, mediaType: string): Promise<string> {
    const digest = sha256Digest(bytes);
    const target = ref.tag ?? ref.digest ?? digest;
    if (ref.digest && ref.digest !== digest) throw new DigestMismatchError(ref.digest, digest, formatReference(ref));
    await this.send(ref, 'PUT', `/manifests/${target}`, PUSH, { 'content-type': mediaType }, [201], bytes);
    return digest;
  }

  /** Points `tag` at an existing manifest, pushing its exact bytes again. */
  async tag(repo: RepositoryRef, digest: string, tag: string): Promise<void> {
    const manifest = await this.getManifest({ ...repo, digest });
    await this.putManifest({ ...repo, tag }, manifest.bytes, manifest.mediaType);
  }

  /** Every tag of a repository, following `Link: <…>; rel="next"` pages. */
  async listTags(repo: RepositoryRef): Promise<string[]> {
    const tags: string[] = [];
    let path: string | undefined = `/v2/${repo.repository}/tags/list?n=${this.options.tagPageSize}`;
    while (path) {
      const res = await this.transport.send(repo.registry, { method: 'GET', path, scopes: [repositoryScope(repo.repository, PULL)], ok: [200] });
      const body = (await res.json()) as { tags?: string[] | null };
      tags.push(...(body.tags ?? []));
      path = nextLink(res.headers.get('link'), this.transport.baseUrl(repo.registry));
    }
    return tags;
  }

  async blobExists(repo: RepositoryRef, digest: string): Promise<boolean> {
    const res = await this.send(repo, 'HEAD', `/blobs/${assertDigest(digest)}`, PULL, {}, [200, 404]);
    return res.status === 200;
  }

  /** Streams a blob; the stream errors with DigestMismatchError at its end if the content is wrong. */
  async fetchBlob(repo: RepositoryRef, digest: string, size?: number): Promise<Readable> {
    const res = await this.send(repo, 'GET', `/blobs/${assertDigest(digest)}`, PULL, {}, [200]);
    if (!res.body) throw new RegistryError('GET', `${repo.repository}@${digest}`, res.status, undefined, 'empty body');
    const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
    const verifier = new DigestVerifier(digest, `blob ${repo.registry}/${repo.repository}@${digest}`, size);
    body.on('error', (err) => verifier.destroy(err));
    return body.pipe(verifier);
  }

  /**
   * Uploads a blob unless the repository has it: one POST + PUT (monolithic),
   * or POST, PATCH per chunk, PUT when larger than `chunkSize`.
   */
  async pushBlob(repo: RepositoryRef, data: Buffer, options: { chunkSize?: number } = {}): Promise<Descriptor & { uploaded: boolean }> {
    const digest = sha256Digest(data);
    const desc = { mediaType: 'application/octet-stream', digest, size: data.length };
    if (await this.blobExists(repo, digest)) return { ...desc, uploaded: false };
    const chunkSize = options.chunkSize ?? this.options.chunkSize;
    const start = await this.send(repo, 'POST', '/blobs/uploads/', PUSH, {}, [202]);
    let location = uploadLocation(start, this.transport.baseUrl(repo.registry));
    if (chunkSize > 0 && data.length > chunkSize) {
      for (let offset = 0; offset < data.length; offset += chunkSize) {
        const chunk = data.subarray(offset, Math.min(offset + chunkSize, data.length));
        const res = await this.transport.send(repo.registry, {
          method: 'PATCH',
          path: location,
          scopes: [repositoryScope(repo.repository, PUSH)],
          headers: {
            'content-type': 'application/octet-stream',
            'content-range': `${offset}-${offset + chunk.length - 1}`,
          },
          body: chunk,
          ok: [202],
        });
        location = uploadLocation(res, this.transport.baseUrl(repo.registry));
      }
      await this.finishUpload(repo, location, digest);
    } else {
      await this.finishUpload(repo, location, digest, data);
    }
    return { ...desc, uploaded: true };
  }

  /** Cross-repository mount; false when the registry declined (then push the blob instead). */
  async mountBlob(repo: RepositoryRef, digest: string, fromRepository: string): Promise<boolean> {
    const query = `?mount=${encodeURIComponent(assertDigest(digest))}&from=${encodeURIComponent(fromRepository)}`;
    const res = await this.transport.send(repo.registry, {
      method: 'POST',
      path: `/v2/${repo.repository}/blobs/uploads/${query}`,
      scopes: [repositoryScope(repo.repository, PUSH), repositoryScope(fromRepository, PULL)],
      ok: [201, 202],
    });
    await res.body?.cancel();
    if (res.status === 202) {
      // The registry opened an upload instead; cancel it so nothing dangles.
      const location = uploadLocation(res, this.transport.baseUrl(repo.registry));
      await this.transport
        .send(repo.registry, { method: 'DELETE', path: location, scopes: [repositoryScope(repo.repository, PUSH)], ok: [204, 404] })
        .then((r) => r.body?.cancel())
        .catch(() => undefined);
    }
    return res.status === 201;
  }

  private async finishUpload(repo: RepositoryRef, location: string, digest: string, body?: Buffer): Promise<void> {
    const url = new URL(location);
    url.searchParams.set('digest', digest);
    const res = await this.transport.send(repo.registry, {
      method: 'PUT',
      path: url.toString(),
      scopes: [repositoryScope(repo.repository, PUSH)],
      // No hand-set content-length: fetch derives it from the body, and a
      // second undici in the process (libs/kube's) rejects a duplicate.
      headers: { 'content-type': 'application/octet-stream' },
      body: body ?? Buffer.alloc(0),
      ok: [201],
    });
    await res.body?.cancel();
  }

  private async send(
    repo: RepositoryRef,
    method: string,
    suffix: string,
    actions: readonly ('pull' | 'push')[],
    headers: Record<string, string>,
    ok: readonly number[],
    body?: Buffer,
  ): Promise<Response> {
    const res = await this.transport.send(repo.registry, {
      method,
      path: `/v2/${repo.repository}${suffix}`,
      scopes: [repositoryScope(repo.repository, actions)],
      headers,
      body,
      ok,
    });
    if (method === 'HEAD' || (method !== 'GET' && res.status !== 200)) await res.body?.cancel();
    return res;
  }
}

function manifestTarget(ref: Reference): string {
  const target = ref.digest ?? ref.tag;
  if (!target) throw new InvalidReferenceError(formatReference(ref), 'a tag or digest is required');
  return target;
}

function mediaTypeOf(bytes: Buffer): string {
  try {
    return (JSON.parse(bytes.toString()) as { mediaType?: string }).mediaType ?? '';
  } catch {
    return '';
  }
}

function uploadLocation(res: Response, base: string): string {
  const location = res.headers.get('location');
  if (!location) throw new RegistryError('POST', base, res.status, undefined, 'upload response without Location');
  return new URL(location, base).toString();
}

/** `<path?last=x&n=100>; rel="next"` → absolute or registry-relative path. */
export function nextLink(header: string | null, base: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(part);
    if (m?.[1]) {
      const url = new URL(m[1], base);
      return url.origin === new URL(base).origin ? `${url.pathname}${url.search}` : url.toString();
    }
  }
  return undefined;
}
