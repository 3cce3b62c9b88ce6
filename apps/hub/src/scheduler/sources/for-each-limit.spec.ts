import { forEachLimit } from './for-each-limit';

describe('forEachLimit', () => {
  it('never runs more than the limit at once and runs every item', async () => {
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    const gates = Array.from({ length: 6 }, () => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    });
    const all = forEachLimit([0, 1, 2, 3, 4, 5], 2, async (i) => {
      running++;
      peak = Math.max(peak, running);
      await gates[i].promise;
      running--;
      done.push(i);
    });
    for (const g of gates) {
      g.resolve();
      await new Promise((r) => setImmediate(r));
    }
    await all;
    expect(peak).toBe(2);
    expect(done.sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('finishes the other items when one fails, then rejects with that error', async () => {
    const done: number[] = [];
    await expect(
      forEachLimit([1, 2, 3], 1, async (i) => {
        if (i === 2) throw new Error('two');
        done.push(i);
      }),
    ).rejects.toThrow('two');
    expect(done).toEqual([1, 3]);
  });
});
