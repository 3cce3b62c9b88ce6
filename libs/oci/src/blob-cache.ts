// A content-addressed blob cache on disk: blobs stored by digest, re-hashed on
// every read (a corrupt file is dropped and fetched again), written through a
// temp file and renamed into place, kept under a size cap by evicting the least
// recently used, and one download per digest however many callers ask at once.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DigestVerifier, digestHex } from './digest';

export interface BlobCacheOptions {
  /** Directory owned by the cache; blobs live in `<dir>/blobs/sha256/<hex>`. */
  dir: string;
  /** Total bytes kept; least recently used blobs are evicted beyond it. */
  maxBytes: number;
}

export function defaultBlobCacheOptions(dir: string): BlobCacheOptions {
  return { dir, maxBytes: 2 * 1024 * 1024 * 1024 };
}

interface Entry {
  size: number;
  lastUsed: number;
}

export interface BlobCacheStats {
  hits: number;
  misses: number;
  corrupt: number;
  evicted: number;
  bytes: number;
  entries: number;
}

export class BlobCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<string>>();
  private opened: Promise<void> | undefined;
  private clock = 0;
  private readonly counters = { hits: 0, misses: 0, corrupt: 0, evicted: 0 };

  constructor(readonly options: BlobCacheOptions) {}

  private get blobDir(): string {
    return join(this.options.dir, 'blobs', 'sha256');
  }

  private get tmpDir(): string {
    return join(this.options.dir, 'tmp');
  }

  path(digest: string): string {
    return join(this.blobDir, digestHex(digest));
  }

  stats(): BlobCacheStats {
    let bytes = 0;
    for (const e of this.entries.values()) bytes += e.size;
    return { ...this.counters, bytes, entries: this.entries.size };
  }

  /**
   * The path of a verified copy of `digest`, calling `load` for the content
   * when missing or corrupt. Concurrent calls for one digest share one load.
   */
  fetch(digest: string, load: () => Promise<Readable>): Promise<string> {
    digestHex(digest);
    let pending = this.inflight.get(digest);
    if (!pending) {
      pending = this.fetchOnce(digest, load).finally(() => this.inflight.delete(digest));
      this.inflight.set(digest, pending);
    }
    return pending;
  }

  /** Like fetch, but returns an open stream, so a later eviction cannot take the file away. */
  async open(digest: string, load: () => Promise<Readable>): Promise<Readable> {
    const path = await this.fetch(digest, load);
    const handle = await open(path, 'r');
    return handle.createReadStream();
  }

  /** True when a verified copy is on disk. */
  async has(digest: string): Promise<boolean> {
    await this.init();
    return this.verify(digest);
  }

  private async fetchOnce(digest: string, load: () => Promise<Readable>): Promise<string> {
    await this.init();
    const path = this.path(digest);
    if (await this.verify(digest)) {
      this.counters.hits++;
      await this.touch(digest);
      return path;
    }
    this.counters.misses++;
    const tmp = join(this.tmpDir, `${digestHex(digest)}.${randomBytes(6).toString('hex')}`);
    try {
      const source = await load();
      await pipeline(source, new DigestVerifier(digest, `cache fill ${digest}`), (await open(tmp, 'wx')).createWriteStream());
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    const { size } = await stat(path);
    this.entries.set(digest, { size, lastUsed: this.tick() });
    await this.evict(digest);
    return path;
  }

  /** Re-hashes the file; drops it when it no longer matches its name. */
  private async verify(digest: string): Promise<boolean> {
    const path = this.path(digest);
    const hash = createHash('sha256');
    try {
      await pipeline(createReadStream(path), hash);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.entries.delete(digest);
        return false;
      }
      throw err;
    }
    if (`sha256:${hash.digest('hex')}` === digest) return true;
    this.counters.corrupt++;
    this.entries.delete(digest);
    await rm(path, { force: true });
    return false;
  }

  private async touch(digest: string): Promise<void> {
    const entry = this.entries.get(digest);
    const now = this.tick();
    if (entry) entry.lastUsed = now;
    else this.entries.set(digest, { size: (await stat(this.path(digest))).size, lastUsed: now });
    // The file time carries recency across restarts.
    const when = new Date();
    await utimes(this.path(digest), when, when).catch(() => undefined);
  }

  private async evict(keep: string): Promise<void> {
    let total = 0;
    for (const e of this.entries.values()) total += e.size;
    if (total <= this.options.maxBytes) return;
    // Never the blob just written, nor one another caller is reading right now.
    const byAge = [...this.entries.entries()].filter(([d]) => d !== keep && !this.inflight.has(d));
    byAge.sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [digest, entry] of byAge) {
      if (total <= this.options.maxBytes) break;
      await rm(this.path(digest), { force: true });
      this.entries.delete(digest);
      this.counters.evicted++;
      total -= entry.size;
    }
  }

  /** Monotonic use counter seeded from file times, so order survives equal timestamps. */
  private tick(): number {
    this.clock = Math.max(this.clock + 1, Date.now());
    return this.clock;
  }

  /** Temp files of crashed writers; recent ones may belong to another process sharing the dir. */
  private async sweepTemp(): Promise<void> {
    const cutoff = Date.now() - 60 * 60 * 1000;
    for (const name of await readdir(this.tmpDir)) {
      const file = join(this.tmpDir, name);
      const st = await stat(file).catch(() => undefined);
      if (st && st.mtimeMs < cutoff) await rm(file, { force: true });
    }
  }

  private init(): Promise<void> {
    this.opened ??= (async () => {
      await mkdir(this.blobDir, { recursive: true });
      await mkdir(this.tmpDir, { recursive: true });
      await this.sweepTemp();
      for (const name of await readdir(this.blobDir)) {
        if (!/^[a-f0-9]{64}$/.test(name)) continue;
        const st = await stat(join(this.blobDir, name));
        this.entries.set(`sha256:${name}`, { size: st.size, lastUsed: st.mtimeMs });
      }
    })();
    return this.opened;
  }
}
