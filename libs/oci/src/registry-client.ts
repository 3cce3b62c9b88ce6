// An OCI distribution client (spec v1.1 endpoints) on Node's fetch. Every
// request has a total deadline (headers and body) joined with the caller's
// signal, and every body is read within a byte limit.
import { Readable, pipeline } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { repositoryScope } from './auth-challenge';
import { DigestVerifier, assertDigest, sha256Digest } from './digest';
import { ContentTooLargeError, DigestMismatchError, InvalidReferenceError, RegistryError } from './errors';
import { MANIFEST_ACCEPT, USER_AGENT } from './media-types';
import { formatReference } from './reference';
import { RegistryTransport } from './registry-transport';
import { RequestDeadline } from './request-deadline';
import { ByteLimit, readLimited, refuseAnnouncedOver } from './response-read';
import type { CredentialSource, Descriptor, FetchedManifest, Reference } from './types';

export interface RegistryClientOptions {
  /** Credentials, or a lookup by registry host (e.g. from `dockerConfigCredentials`). */
  credentials: CredentialSource;
  /**
   * Who the credentials are (e.g. a fingerprint of them): caches may treat
   * clients of equal identity as one when remembering access checks.
   */
  identity?: string;
  /** Allow plain HTTP to registries that are not loopback hosts. */
  insecure: boolean;
  userAgent: string;
  /** Upload blobs larger than this in PATCH chunks of this size; 0 uploads in one PUT. */
  chunkSize: number;
  /** Page size asked for when listing tags. */
  tagPageSize: number;
  /**
   * Total deadline of one request in milliseconds: headers and the whole body
   * (manifests, tag pages, token requests, upload answers).
   */
  responseTimeoutMs: number;
  /** Blob transfers get `responseTimeoutMs` plus the time their size takes at this rate. */
  minBlobBytesPerSecond: number;
  /** Largest manifest read (distribution refuses to store larger ones). */
  maxManifestBytes: number;
  /** Largest blob (layer) downloaded. */
  maxBlobBytes: number;
  /** Largest token endpoint answer read. */
  maxTokenBytes: number;
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
    minBlobBytesPerSecond: 1024 * 1024,
    maxManifestBytes: 4 * 1024 * 1024,
    maxBlobBytes: 512 * 1024 * 1024,
    maxTokenBytes: 64 * 1024,
    fetch: globalThis.fetch,
  };
}

/** Per call: the caller's signal ends the request (with RegistryAbortedError). */
export interface CallOptions {
  signal?: AbortSignal;
}

/** A repository: a reference's registry and repository, tag and digest ignored. */
export type RepositoryRef = Pick<Reference, 'registry' | 'repository'>;

const PULL = ['pull'] as const;
const PUSH = ['pull', 'push'] as const;
/** One page of a tag list; a thousand tags are some 50 KiB. */
const MAX_TAG_PAGE_BYTES = 4 * 1024 * 1024;

interface Call {
  method: string;
  /** `/v2/...` or an absolute URL (upload locations, tag pages). */
  path: string;
  scopes: readonly string[];
  headers?: Record<string, string>;
  body?: Buffer;
  ok: readonly number[];
  /** Deadline of this request; the client's `responseTimeoutMs` when unset. */
  timeoutMs?: number;
}

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
  async resolve(ref: Reference, opts: CallOptions = {}): Promise<Descriptor> {
    const target = manifestTarget(ref);
    const res = await this.call(ref, this.repoCall(ref, 'HEAD', `/manifests/${target}`, PULL, [200, 404, 405], { accept: MANIFEST_ACCEPT }), opts, cancelBody);
    const digest = res.headers.get('docker-content-digest');
    const mediaType = res.headers.get('content-type')?.split(';')[0];
    const length = res.headers.get('content-length');
    const size = Number(length);
    if (res.status === 200 && digest && mediaType && length !== null && Number.isInteger(size)) {
      if (ref.digest && digest !== ref.digest) throw new DigestMismatchError(ref.digest, digest, formatReference(ref));
      return { mediaType, digest: assertDigest(digest), size };
    }
    const manifest = await this.getManifest(ref, opts);
    return { mediaType: manifest.mediaType, digest: manifest.digest, size: manifest.bytes.length };
  }

  /**
   * The manifest as served, at most `maxManifestBytes`; its digest is the
   * sha256 of those bytes and is checked against a pinned digest.
   */
  async getManifest(ref: Reference, opts: CallOptions = {}): Promise<FetchedManifest> {
    const req = this.repoCall(ref, 'GET', `/manifests/${manifestTarget(ref)}`, PULL, [200], { accept: MANIFEST_ACCEPT });
    const { bytes, contentType } = await this.call(ref, req, opts, async (res) => ({
      bytes: await readLimited(res, this.options.maxManifestBytes, `manifest ${formatReference(ref)}`),
      contentType: res.headers.get('content-type'),
    }));
    const digest = sha256Digest(bytes);
    if (ref.digest && digest !== ref.digest) throw new DigestMismatchError(ref.digest, digest, formatReference(ref));
    const mediaType = contentType?.split(';')[0] ?? mediaTypeOf(bytes);
    return { digest, mediaType, bytes };
  }

  /** Pushes manifest bytes under a tag or their digest; returns the digest. */
  async putManifest(ref: Reference, bytes: Buffer, mediaType: string, opts: CallOptions = {}): Promise<string> {
    const digest = sha256Digest(bytes);
    const target = ref.tag ?? ref.digest ?? digest;
    if (ref.digest && ref.digest !== digest) throw new DigestMismatchError(ref.digest, digest, formatReference(ref));
    await this.call(ref, { ...this.repoCall(ref, 'PUT', `/manifests/${target}`, PUSH, [201], { 'content-type': mediaType }), body: bytes }, opts, cancelBody);
    return digest;
  }

  /** Points `tag` at an existing manifest, pushing its exact bytes again. */
  async tag(repo: RepositoryRef, digest: string, tag: string, opts: CallOptions = {}): Promise<void> {
    const manifest = await this.getManifest({ ...repo, digest }, opts);
    await this.putManifest({ ...repo, tag }, manifest.bytes, manifest.mediaType, opts);
  }

  /** Every tag of a repository, following `Link: <…>; rel="next"` pages. */
  async listTags(repo: RepositoryRef, opts: CallOptions = {}): Promise<string[]> {
    const tags: string[] = [];
    let path: string | undefined = `/v2/${repo.repository}/tags/list?n=${this.options.tagPageSize}`;
    while (path) {
      const req: Call = { method: 'GET', path, scopes: [repositoryScope(repo.repository, PULL)], ok: [200] };
      const page = await this.call(repo, req, opts, async (res) => ({
        body: parseJson(await readLimited(res, MAX_TAG_PAGE_BYTES, `tag list of ${repo.registry}/${repo.repository}`)) as { tags?: string[] | null },
        link: res.headers.get('link'),
      }));
      tags.push(...(page.body.tags ?? []));
      path = nextLink(page.link, this.transport.baseUrl(repo.registry));
    }
    return tags;
  }

  async blobExists(repo: RepositoryRef, digest: string, opts: CallOptions = {}): Promise<boolean> {
    const res = await this.call(repo, this.repoCall(repo, 'HEAD', `/blobs/${assertDigest(digest)}`, PULL, [200, 404]), opts, cancelBody);
    return res.status === 200;
  }

  /**
   * Streams a blob of at most `maxBlobBytes` (and `size` when given); the
   * stream errors with DigestMismatchError at its end if the content is wrong,
   * with ContentTooLargeError once too many bytes came, and with
   * RegistryTimeoutError when the transfer outlives its deadline
   * (`responseTimeoutMs` plus the size at `minBlobBytesPerSecond`).
   */
  async fetchBlob(repo: RepositoryRef, digest: string, size?: number, opts: CallOptions = {}): Promise<Readable> {
    const what = `blob ${repo.registry}/${repo.repository}@${assertDigest(digest)}`;
    const max = this.options.maxBlobBytes;
    if (size !== undefined && size > max) throw new ContentTooLargeError(what, max, size, 0);
    const req = { ...this.repoCall(repo, 'GET', `/blobs/${digest}`, PULL, [200]), timeoutMs: this.blobTimeoutMs(size ?? max) };
    const deadline = this.deadline(repo, req, opts);
    try {
      const res = await this.transport.send(repo.registry, { ...req, deadline });
      await refuseAnnouncedOver(res, Math.min(size ?? max, max), what);
      if (!res.body) throw new RegistryError('GET', what, res.status, undefined, 'empty body');
      const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
      const verifier = new DigestVerifier(digest, what, size);
      // The deadline lives until the consumer has read the stream or dropped it.
      pipeline(body, new ByteLimit(max, what), verifier, () => deadline.clear());
      return verifier;
    } catch (err) {
      deadline.clear();
      throw deadline.wrap(err);
    }
  }

  /**
   * Uploads a blob unless the repository has it: one POST + PUT (monolithic),
   * or POST, PATCH per chunk, PUT when larger than `chunkSize`.
   */
  async pushBlob(repo: RepositoryRef, data: Buffer, options: { chunkSize?: number; signal?: AbortSignal } = {}): Promise<Descriptor & { uploaded: boolean }> {
    const digest = sha256Digest(data);
    const desc = { mediaType: 'application/octet-stream', digest, size: data.length };
    const opts = { signal: options.signal };
    if (await this.blobExists(repo, digest, opts)) return { ...desc, uploaded: false };
    const chunkSize = options.chunkSize ?? this.options.chunkSize;
    const start = await this.call(repo, this.repoCall(repo, 'POST', '/blobs/uploads/', PUSH, [202]), opts, cancelBody);
    let location = uploadLocation(start, this.transport.baseUrl(repo.registry));
    if (chunkSize > 0 && data.length > chunkSize) {
      for (let offset = 0; offset < data.length; offset += chunkSize) {
        const chunk = data.subarray(offset, Math.min(offset + chunkSize, data.length));
        const req: Call = {
          method: 'PATCH',
          path: location,
          scopes: [repositoryScope(repo.repository, PUSH)],
          headers: {
            'content-type': 'application/octet-stream',
            'content-range': `${offset}-${offset + chunk.length - 1}`,
          },
          body: chunk,
          ok: [202],
          timeoutMs: this.blobTimeoutMs(chunk.length),
        };
        const res = await this.call(repo, req, opts, cancelBody);
        location = uploadLocation(res, this.transport.baseUrl(repo.registry));
      }
      await this.finishUpload(repo, location, digest, opts);
    } else {
      await this.finishUpload(repo, location, digest, opts, data);
    }
    return { ...desc, uploaded: true };
  }

  /** Cross-repository mount; false when the registry declined (then push the blob instead). */
  async mountBlob(repo: RepositoryRef, digest: string, fromRepository: string, opts: CallOptions = {}): Promise<boolean> {
    const query = `?mount=${encodeURIComponent(assertDigest(digest))}&from=${encodeURIComponent(fromRepository)}`;
    const req: Call = {
      method: 'POST',
      path: `/v2/${repo.repository}/blobs/uploads/${query}`,
      scopes: [repositoryScope(repo.repository, PUSH), repositoryScope(fromRepository, PULL)],
      ok: [201, 202],
    };
    const res = await this.call(repo, req, opts, cancelBody);
    if (res.status === 202) {
      // The registry opened an upload instead; cancel it so nothing dangles.
      const location = uploadLocation(res, this.transport.baseUrl(repo.registry));
      const cancel: Call = { method: 'DELETE', path: location, scopes: [repositoryScope(repo.repository, PUSH)], ok: [204, 404] };
      await this.call(repo, cancel, opts, cancelBody).catch(() => undefined);
    }
    return res.status === 201;
  }

  private async finishUpload(repo: RepositoryRef, location: string, digest: string, opts: CallOptions, body?: Buffer): Promise<void> {
    const url = new URL(location);
    url.searchParams.set('digest', digest);
    const req: Call = {
      method: 'PUT',
      path: url.toString(),
      scopes: [repositoryScope(repo.repository, PUSH)],
      // No hand-set content-length: fetch derives it from the body, and a
      // second undici in the process (libs/kube's) rejects a duplicate.
      headers: { 'content-type': 'application/octet-stream' },
      body: body ?? Buffer.alloc(0),
      ok: [201],
      timeoutMs: this.blobTimeoutMs(body?.length ?? 0),
    };
    await this.call(repo, req, opts, cancelBody);
  }

  private blobTimeoutMs(bytes: number): number {
    return this.options.responseTimeoutMs + Math.ceil((bytes / this.options.minBlobBytesPerSecond) * 1000);
  }

  private repoCall(
    repo: RepositoryRef,
    method: string,
    suffix: string,
    actions: readonly ('pull' | 'push')[],
    ok: readonly number[],
    headers: Record<string, string> = {},
  ): Call {
    return { method, path: `/v2/${repo.repository}${suffix}`, scopes: [repositoryScope(repo.repository, actions)], headers, ok };
  }

  private deadline(repo: RepositoryRef, req: Call, opts: CallOptions): RequestDeadline {
    const url = this.transport.url(repo.registry, req.path);
    return new RequestDeadline(req.method, url, req.timeoutMs ?? this.options.responseTimeoutMs, opts.signal);
  }

  /** One request under its deadline; `read` consumes the response before the deadline is cleared. */
  private async call<T>(repo: RepositoryRef, req: Call, opts: CallOptions, read: (res: Response) => Promise<T>): Promise<T> {
    const deadline = this.deadline(repo, req, opts);
    try {
      const res = await this.transport.send(repo.registry, { ...req, deadline });
      return await read(res);
    } catch (err) {
      throw deadline.wrap(err);
    } finally {
      deadline.clear();
    }
  }
}

async function cancelBody(res: Response): Promise<Response> {
  await res.body?.cancel().catch(() => undefined);
  return res;
}

function parseJson(bytes: Buffer): unknown {
  return JSON.parse(bytes.toString('utf8'));
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
    // anchored: unanchored, every "<" would start a new scan to the end (quadratic)
    const m = /^\s*<([^>]+)>\s*;\s*rel="?next"?/i.exec(part);
    if (m?.[1]) {
      const url = new URL(m[1], base);
      return url.origin === new URL(base).origin ? `${url.pathname}${url.search}` : url.toString();
    }
  }
  return undefined;
}
