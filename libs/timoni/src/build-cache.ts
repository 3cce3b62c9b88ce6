// An in-memory LRU of promises: identical keys share one evaluation, also
// while it is still running. Failures are not kept.

export interface BuildCacheStats {
  /** Answered from a finished entry. */
  hits: number;
  /** Joined an evaluation still running. */
  joins: number;
  /** Evaluations started. */
  misses: number;
  size: number;
  evictions: number;
}

export class LruPromiseCache<T> {
  private readonly entries = new Map<string, { promise: Promise<T>; done: boolean }>();
  private readonly counters = { hits: 0, joins: 0, misses: 0, evictions: 0 };

  /** @param capacity finished entries kept; the least recently used go first. */
  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError(`cache capacity must be at least 1, got ${capacity}`);
  }

  getOrCreate(key: string, create: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit) {
      if (hit.done) this.counters.hits++;
      else this.counters.joins++;
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.promise;
    }
    this.counters.misses++;
    const entry = { promise: create(), done: false };
    this.entries.set(key, entry);
    entry.promise.then(
      () => {
        entry.done = true;
        this.evict();
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.promise;
  }

  private evict(): void {
    for (const [key, e] of this.entries) {
      if (this.entries.size <= this.capacity) return;
      if (!e.done) continue;
      this.entries.delete(key);
      this.counters.evictions++;
    }
  }

  stats(): BuildCacheStats {
    return { ...this.counters, size: this.entries.size };
  }
}
