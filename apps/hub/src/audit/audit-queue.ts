// A small bounded queue between requests and the database: requests only
// push (no await, no I/O), one writer flushes a batch at a time. When the
// database is slow or away the queue fills up to `capacity` and then drops
// the newest entries, counting them, rather than growing without bound.

export interface AuditQueueOptions {
  /** most entries written in one statement */
  batchSize: number;
  /** how long an entry may wait for a batch to fill before it is written */
  flushIntervalMs: number;
  /** most entries held in memory; past it new entries are dropped */
  capacity: number;
}

export function defaultAuditQueueOptions(): AuditQueueOptions {
  return { batchSize: 200, flushIntervalMs: 250, capacity: 10_000 };
}

export interface AuditQueueHooks<T> {
  /** writes one batch (one statement); a rejection keeps the batch for the next attempt */
  write(batch: T[]): Promise<void>;
  /** an entry did not fit (`full`), or came after close() (`closed`) */
  dropped(entry: T, reason: 'full' | 'closed'): void;
  /** a batch failed to write (it stays queued) */
  failed(err: unknown, size: number): void;
}

export class AuditQueue<T> {
  private readonly entries: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly options: AuditQueueOptions,
    private readonly hooks: AuditQueueHooks<T>,
  ) {}

  get size(): number {
    return this.entries.length;
  }

  /** Queues one entry; returns false (and reports it dropped) when the queue is full or closed. */
  push(entry: T): boolean {
    if (this.closed || this.entries.length >= this.options.capacity) {
      this.hooks.dropped(entry, this.closed ? 'closed' : 'full');
      return false;
    }
    this.entries.push(entry);
    if (this.entries.length >= this.options.batchSize) void this.drain();
    else this.schedule();
    return true;
  }

  /** Writes everything queued so far (resolves once it is written or a write failed). */
  async flush(): Promise<void> {
    await this.drain();
  }

  /** Stops the timer after one last flush. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.drain();
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.drain();
    }, this.options.flushIntervalMs);
    // a queue with entries must not keep a stopping process alive; close() flushes them
    this.timer.unref();
  }

  /** One writer at a time: batches go out in order; a failed batch stops this round and is retried at the next tick. */
  private drain(): Promise<void> {
    if (this.writing) return this.writing.then(() => (this.entries.length > 0 ? this.drain() : undefined));
    this.writing = (async () => {
      while (this.entries.length > 0) {
        const batch = this.entries.slice(0, this.options.batchSize);
        try {
          await this.hooks.write(batch);
        } catch (err) {
          this.hooks.failed(err, batch.length);
          this.schedule();
          return;
        }
        this.entries.splice(0, batch.length);
      }
    })().finally(() => {
      this.writing = undefined;
    });
    return this.writing;
  }
}
