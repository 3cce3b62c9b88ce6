import { Coalescer, type CoalescerTimer, ItemFailed } from './coalescer';

/** A timer that fires only when the spec says so. */
class HandTimer implements CoalescerTimer {
  private next = 1;
  readonly armed = new Map<number, { fn: () => void; ms: number }>();
  set(fn: () => void, ms: number): number {
    const id = this.next++;
    this.armed.set(id, { fn, ms });
    return id;
  }
  clear(handle: unknown): void {
    this.armed.delete(handle as number);
  }
  fire(): void {
    const all = [...this.armed.values()];
    this.armed.clear();
    for (const t of all) t.fn();
  }
}

/** Lets settled promises run their callbacks. */
const settle = () => new Promise<void>((r) => setImmediate(r));

describe('Coalescer', () => {
  it('holds the first item for the window, then flushes everything gathered in one batch', async () => {
    const timer = new HandTimer();
    const batches: number[][] = [];
    const c = new Coalescer<number, number>(async (items) => (batches.push(items), items.map((i) => i * 10)), { windowMs: 50, maxItems: 100, timer });
    const a = c.add(1);
    const b = c.add(2);
    await settle();
    expect(batches).toEqual([]);
    expect([...timer.armed.values()].map((t) => t.ms)).toEqual([50]);
    timer.fire();
    await expect(Promise.all([a, b])).resolves.toEqual([10, 20]);
    expect(batches).toEqual([[1, 2]]);
  });

  it('flushes a full batch at once, without waiting for the window', async () => {
    const timer = new HandTimer();
    const batches: number[][] = [];
    const c = new Coalescer<number, number>(async (items) => (batches.push(items), items), { windowMs: 50, maxItems: 2, timer });
    await Promise.all([c.add(1), c.add(2)]);
    expect(batches).toEqual([[1, 2]]);
    expect(timer.armed.size).toBe(0);
  });

  it('runs one flush at a time; what arrives meanwhile goes in the next batch as soon as it ends', async () => {
    const timer = new HandTimer();
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const c = new Coalescer<number, number>(
      async (items) => {
        batches.push(items);
        if (batches.length === 1) await new Promise<void>((r) => (release = r));
        return items;
      },
      { windowMs: 50, maxItems: 2, timer },
    );
    const first = Promise.all([c.add(1), c.add(2)]);
    const later = Promise.all([c.add(3), c.add(4), c.add(5)]);
    timer.fire(); // the window of the waiting items ends while the first flush still runs
    await settle();
    expect(batches).toEqual([[1, 2]]);
    release();
    await first;
    await later; // 3, 4 go as soon as the first ends; 5 follows (one batch holds at most 2)
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('fails every item of a batch whose flush throws, and goes on with the next', async () => {
    const timer = new HandTimer();
    let calls = 0;
    const c = new Coalescer<number, number>(
      async (items) => {
        if (calls++ === 0) throw new Error('database away');
        return items;
      },
      { windowMs: 50, maxItems: 2, timer },
    );
    const failed = [c.add(1), c.add(2)].map((p) => p.catch((e: Error) => e.message));
    await expect(Promise.all(failed)).resolves.toEqual(['database away', 'database away']);
    const ok = c.add(3);
    timer.fire();
    await expect(ok).resolves.toBe(3);
  });

  it('fails only the items a flush answers with ItemFailed', async () => {
    const c = new Coalescer<number, number>(async (items) => items.map((i) => (i === 2 ? new ItemFailed(new Error('bad row')) : i)), { windowMs: 50, maxItems: 2, timer: new HandTimer() });
    const [one, two] = [c.add(1), c.add(2).catch((e: Error) => e.message)];
    await expect(one).resolves.toBe(1);
    await expect(two).resolves.toBe('bad row');
  });
});
