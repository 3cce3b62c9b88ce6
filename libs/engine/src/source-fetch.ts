// Steps 1–2 of a reconcile: the tag resolved to a digest, then the artifact
// fetched by digest (layers through the blob cache), extracted safely and
// kept in memory by digest, so Targets sharing a revision fetch it once.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ArtifactFormatError, CONTENT_TYPE, InvalidReferenceError, UnsafeArchiveError,
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
export async function resolveTag(client: RegistryClient, repository: string, tag: string): Promise<string> {
  const ref = sourceReference(repository, tag);
  try {
    return (await client.resolve(ref)).digest;
  } catch (err) {
    throw new ResolveError(formatReference(ref), { cause: err });
  }
}

export interface SourceCacheOptions {
  /** extracted artifacts kept in memory, by digest */
  capacity: number;
  /** where artifacts are extracted before being read into memory */
  workDir: string;
  /** layer blobs by digest (on disk, verified); none streams every fetch */
  blobCache?: BlobCache;
  extract: ExtractOptions;
}

export function defaultSourceCacheOptions(): SourceCacheOptions {
  return { capacity: 32, workDir: tmpdir(), extract: defaultExtractOptions() };
}

async function readTree(root: string): Promise<SourceFiles> {
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

/** Project artifacts by repository and digest; concurrent fetches of one digest share a pull. */
export class SourceCache {
  readonly options: SourceCacheOptions;
  private readonly entries = new Map<string, Promise<SourceFiles>>();
  /** registry pulls made (tests and benchmarks) */
  pulls = 0;

  constructor(options: Partial<SourceCacheOptions> = {}) {
    this.options = { ...defaultSourceCacheOptions(), ...options };
  }

  /** The artifact's files; a failed fetch is not cached. */
  fetch(client: RegistryClient, repository: string, digest: string): Promise<SourceFiles> {
    const ref = { ...sourceReference(repository, 'latest'), tag: undefined, digest };
    // Keyed by repository too: a digest alone must not hand one repository's content to another's readers.
    const key = formatReference(ref);
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const p = this.pull(client, ref);
    this.entries.set(key, p);
    p.catch(() => this.entries.delete(key));
    while (this.entries.size > this.options.capacity) this.entries.delete(this.entries.keys().next().value!);
    return p;
  }

  private async pull(client: RegistryClient, ref: Reference): Promise<SourceFiles> {
    this.pulls++;
    const dest = await mkdtemp(join(this.options.workDir, 'flotilla-source-'));
    try {
      await pullArtifact(client, ref, dest, CONTENT_TYPE.any, { cache: this.options.blobCache, extract: this.options.extract });
      return await readTree(dest);
    } catch (err) {
      const invalid = err instanceof ArtifactFormatError || err instanceof UnsafeArchiveError || err instanceof InvalidReferenceError;
      throw new FetchError(formatReference(ref), invalid, { cause: err });
    } finally {
      await rm(dest, { recursive: true, force: true });
    }
  }
}
