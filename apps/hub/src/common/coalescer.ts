/** The timer a Coalescer waits on; specs pass one they move by hand. */
export interface CoalescerTimer {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimer: CoalescerTimer = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface CoalescerOptions {
  /** how long the first item of a batch waits for others */
  windowMs: number;
  /** a batch this full goes at once */
  maxItems: number;
  timer?: CoalescerTimer;
}

/** A flush's answer for one item that failed on its own; that item's promise rejects with `error`. */
export class ItemFailed {
  constructor(readonly error: unknown) {}
}

interface Pending<I, O> {
  item: I;
  resolve(o: O): void;
  reject(err: unknown): void;
}

/**
 * Gathers single requests into batches: a batch is flushed `windowMs` after
 * its first item or as soon as it holds `maxItems`, and one batch is flushed
 * at a time (a slow database gets fewer, larger batches instead of a pile of
 * small ones). `flush` answers each item, in order (ItemFailed: that item
 * fails); when it throws, every item of the batch fails with that error.
 */
export class Coalescer<I, O> {
  private queue: Array<Pending<I, O>> = [];
  private handle: unknown;
  private flushing = false;
  private readonly timer: CoalescerTimer;

  constructor(
    private readonly flush: (items: I[]) => Promise<Array<O | ItemFailed>>,
    private readonly options: CoalescerOptions,
  ) {
    this.timer = options.timer ?? realTimer;
  }

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length >= this.options.maxItems) this.go();
      else if (this.queue.length === 1 && this.handle === undefined) this.handle = this.timer.set(() => this.go(), this.options.windowMs);
    });
  }

  /** Items waiting for their batch. */
  get waiting(): number {
    return this.queue.length;
  }

  private go(): void {
    if (this.handle !== undefined) this.timer.clear(this.handle);
    this.handle = undefined;
    if (this.flushing || this.queue.length === 0) return; // the running flush picks them up when it ends
    const batch = this.queue.splice(0, this.options.maxItems);
    this.flushing = true;
    this.flush(batch.map((p) => p.item))
      .then(
        (out) => batch.forEach((p, i) => {
          const o = out[i];
          if (o instanceof ItemFailed) p.reject(o.error);
          else p.resolve(o);
        }),
        (err: unknown) => batch.forEach((p) => p.reject(err)),
      )
      .finally(() => {
        this.flushing = false;
        // what came in meanwhile waited at least one flush: it goes now
        if (this.queue.length > 0) this.go();
      });
  }
}

/**
 * A flush for Coalescer: the batch's answers; if the batch fails, each item
 * written on its own, so an item fails only for its own reason.
 */
export async function eachOnFailure<I, O>(batch: () => Promise<O[]>, items: readonly I[], one: (item: I) => Promise<O>): Promise<Array<O | ItemFailed>> {
  try {
    return await batch();
  } catch (err) {
    if (items.length === 1) throw err;
    const out = await Promise.allSettled(items.map(one));
    return out.map((r) => (r.status === 'fulfilled' ? r.value : new ItemFailed(r.reason)));
  }
}
