// Steps 1–2 of a reconcile: the tag resolved to a digest, then the artifact
// fetched by digest (layers through the blob cache), extracted safely and
// kept in memory by digest, so Targets sharing a revision fetch it once.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ArtifactFormatError, CONTENT_TYPE, ContentTooLargeError, InvalidReferenceError, UnsafeArchiveError,
  defaultExtractOptions, formatReference, parseReference, pullArtifact,
  type BlobCache, type ExtractOptions, type Reference, type RegistryClient,
} from '@flotilla/oci';
import { FetchError, ResolveError } from './errors';
import type { SourceFiles } from './types';

/** `oci://host/repo` + tag → reference; a malformed one is a ResolveError. */
export function sourceReference(repository: string, tag: string): Reference {
  try {
    const ref = parseReference(repository);
    if (ref.tag || ref.digest) throw new Error(`repository ${repository} must not carry a tag or digest (use source.tag)`);
    return { ...ref, tag };
  } catch (err) {
    throw new ResolveError(`${repository}:${tag}`, { cause: err });
  }
}

/** One registry round trip: the digest the tag points at now. */
export async function resolveTag(client: RegistryClient, repository: string, tag: string, opts: { signal?: AbortSignal } = {}): Promise<string> {
  const ref = sourceReference(repository, tag);
  try {
    return (await client.resolve(ref, opts)).digest;
  } catch (err) {
    throw new ResolveError(formatReference(ref), { cause: err });
  }
}

export interface SourceCacheOptions {
  /** extracted artifacts kept in memory, by repository and digest */
  capacity: number;
  /** total bytes of the artifacts kept (file contents and paths); least recently used go first */
  maxBytes: number;
  /** how long a caller's successful access check of an artifact is trusted, per credential identity */
  accessTtlMs: number;
  /** where artifacts are extracted before being read into memory */
  workDir: string;
  /** layer blobs by digest (on disk, verified); none streams every fetch */
  blobCache?: BlobCache;
  extract: ExtractOptions;
  now: () => number;
}

export function defaultSourceCacheOptions(): SourceCacheOptions {
  return { capacity: 32, maxBytes: 256 * 1024 * 1024, accessTtlMs: 60_000, workDir: tmpdir(), extract: defaultExtractOptions(), now: Date.now };
}

export interface SourceCacheStats {
  entries: number;
  bytes: number;
  evicted: number;
  /** registry pulls made */
  pulls: number;
  /** manifest requests made to check a caller's access to cached content */
  accessChecks: number;
}

export async function readTree(root: string): Promise<SourceFiles> {
  const files: SourceFiles = {};
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(join(dir, entry.name), path);
      else if (entry.isFile()) files[path] = await readFile(join(dir, entry.name));
    }
  };
  await walk(root, '');
  return files;
}

function treeBytes(files: SourceFiles): number {
  let n = 0;
  for (const [path, content] of Object.entries(files)) n += path.length + (typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength);
  return n;
}

/** Clients without a credential identity are each their own identity. */
const anonymousIdentities = new WeakMap<RegistryClient, string>();
let nextIdentity = 0;
function identityOf(client: RegistryClient): string {
  if (client.options.identity) return `id:${client.options.identity}`;
  let id = anonymousIdentities.get(client);
  if (!id) anonymousIdentities.set(client, (id = `client:${++nextIdentity}`));
  return id;
}

interface Entry {
  files: Promise<SourceFiles>;
  /** 0 until loaded */
  bytes: number;
  /** credential identity → until when its access is trusted */
  verified: Map<string, number>;
}

/**
 * Project artifacts by repository and digest, bounded in bytes; concurrent
 * fetches of one digest share a pull. Content is shared across tenants only
 * after each caller's own credentials passed a manifest request for it.
 */
export class SourceCache {
  readonly options: SourceCacheOptions;
  private readonly entries = new Map<string, Entry>();
  private evicted = 0;
  private checks = 0;
  /** registry pulls made (tests and benchmarks) */
  pulls = 0;

  constructor(options: Partial<SourceCacheOptions> = {}) {
    this.options = { ...defaultSourceCacheOptions(), ...options };
  }

  stats(): SourceCacheStats {
    let bytes = 0;
    for (const e of this.entries.values()) bytes += e.bytes;
    return { entries: this.entries.size, bytes, evicted: this.evicted, pulls: this.pulls, accessChecks: this.checks };
  }

  /** The artifact's files; a failed fetch is not cached. */
  fetch(client: RegistryClient, repository: string, digest: string, opts: { signal?: AbortSignal } = {}): Promise<SourceFiles> {
    const ref = { ...sourceReference(repository, 'latest'), tag: undefined, digest };
    // Keyed by repository too: a digest alone must not hand one repository's content to another's readers.
    const key = formatReference(ref);
    const identity = identityOf(client);
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return this.serve(hit, client, identity, ref, opts.signal);
    }
    // The pull itself proves the puller's access; it is trusted until it completes, then for the TTL.
    const entry: Entry = { files: this.pull(client, ref, opts.signal), bytes: 0, verified: new Map([[identity, Infinity]]) };
    this.entries.set(key, entry);
    entry.files.then(
      (files) => {
        entry.bytes = treeBytes(files);
        entry.verified.set(identity, this.options.now() + this.options.accessTtlMs);
        // Larger than the whole bound: served to its callers, kept by none, evicting nothing.
        if (entry.bytes > this.options.maxBytes) {
          if (this.entries.get(key) === entry) this.entries.delete(key);
          this.evicted++;
        } else {
          this.evict();
        }
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    this.evict();
    return entry.files;
  }

  /** Cached content for a caller: their own credentials must reach the manifest first. */
  private async serve(entry: Entry, client: RegistryClient, identity: string, ref: Reference, signal: AbortSignal | undefined): Promise<SourceFiles> {
    const trusted = (entry.verified.get(identity) ?? 0) > this.options.now();
    let files: SourceFiles;
    try {
      files = await entry.files;
    } catch (err) {
      // Another caller's pull failed (maybe their credentials): this caller tries with its own.
      if (trusted) throw err;
      return this.fetch(client, repositoryOf(ref), ref.digest!, { signal });
    }
    if (trusted) return files;
    this.checks++;
    try {
      await client.resolve(ref, { signal });
    } catch (err) {
      throw new FetchError(formatReference(ref), false, { cause: err });
    }
    entry.verified.set(identity, this.options.now() + this.options.accessTtlMs);
    return files;
  }

  /** Least recently used first, until within capacity and bytes; a pending pull weighs nothing yet. */
  private evict(): void {
    let total = 0;
    for (const e of this.entries.values()) total += e.bytes;
    for (const [key, e] of this.entries) {
      if (total <= this.options.maxBytes && this.entries.size <= this.options.capacity) break;
      this.entries.delete(key);
      total -= e.bytes;
      this.evicted++;
    }
  }

  private async pull(client: RegistryClient, ref: Reference, signal: AbortSignal | undefined): Promise<SourceFiles> {
    this.pulls++;
    const dest = await mkdtemp(join(this.options.workDir, 'flotilla-source-'));
    try {
      await pullArtifact(client, ref, dest, CONTENT_TYPE.any, { cache: this.options.blobCache, extract: this.options.extract, signal });
      return await readTree(dest);
    } catch (err) {
      const invalid = err instanceof ArtifactFormatError || err instanceof UnsafeArchiveError || err instanceof InvalidReferenceError || err instanceof ContentTooLargeError;
      throw new FetchError(formatReference(ref), invalid, { cause: err });
    } finally {
      await rm(dest, { recursive: true, force: true });
    }
  }
}

function repositoryOf(ref: Reference): string {
  return `oci://${ref.registry}/${ref.repository}`;
}
