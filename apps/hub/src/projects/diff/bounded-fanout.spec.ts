import { boundedFanout } from './bounded-fanout';

describe('boundedFanout', () => {
  it('runs at most `concurrency` items at once and keeps the order of the answers', async () => {
    let running = 0;
    let peak = 0;
    const out = await boundedFanout([1, 2, 3, 4, 5, 6], 2, new AbortController().signal, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setImmediate(r));
      running--;
      return n * 10;
    }, () => -1);
    expect(out).toEqual([10, 20, 30, 40, 50, 60]);
    expect(peak).toBe(2);
  });

  it('answers for every item once the deadline passes: late for running ones, and the rest never start', async () => {
    const deadline = new AbortController();
    const started: number[] = [];
    let bothStarted!: () => void;
    const twoRunning = new Promise<void>((r) => (bothStarted = r));
    const answer = boundedFanout([1, 2, 3], 2, deadline.signal, (n) => {
      started.push(n);
      if (started.length === 2) bothStarted();
      return new Promise<string>(() => undefined); // a cluster that never answers
    }, (n) => `late ${n}`);
    await twoRunning;
    deadline.abort();
    expect(await answer).toEqual(['late 1', 'late 2', 'late 3']);
    expect(started).toEqual([1, 2]);
  });

  it('passes a failure of the work through', async () => {
    await expect(boundedFanout([1], 1, new AbortController().signal, async () => Promise.reject(new Error('boom')), () => 0)).rejects.toThrow('boom');
  });
});
