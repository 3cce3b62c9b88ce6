import { Limiter } from './limiter';

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('Limiter', () => {
  it('runs at most the limit at once, in order, across callers', async () => {
    const limiter = new Limiter(2);
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const all = gates.map((g, i) => limiter.run(async () => {
      started.push(i);
      await g.promise;
      return i;
    }));
    await turn();
    expect(started).toEqual([0, 1]);
    gates[1].open();
    await turn();
    expect(started).toEqual([0, 1, 2]);
    expect(limiter.active).toBe(2);
    gates[0].open();
    gates[2].open();
    gates[3].open();
    expect(await Promise.all(all)).toEqual([0, 1, 2, 3]);
    expect(limiter.active).toBe(0);
  });

  it('frees the slot of a task that fails', async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(async () => {
      throw new Error('boom');
    })).rejects.toThrow('boom');
    expect(await limiter.run(async () => 'next')).toBe('next');
    expect(limiter.active).toBe(0);
  });
});
