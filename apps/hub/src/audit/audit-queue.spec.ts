import { AuditQueue } from './audit-queue';

// The queue with an in-memory writer: what is written, in what batches, and
// what is dropped when the writer cannot keep up. Flushes are driven by hand.
function queue(options: { batchSize: number; capacity: number }, write: (batch: number[]) => Promise<void>) {
  const dropped: string[] = [];
  const failures: number[] = [];
  const q = new AuditQueue<number>({ ...options, flushIntervalMs: 60_000 }, { write, dropped: (e, why) => dropped.push(`${e} ${why}`), failed: (_err, n) => failures.push(n) });
  return { q, dropped, failures };
}

describe('AuditQueue', () => {
  it('writes everything in order, in batches of at most batchSize', async () => {
    const batches: number[][] = [];
    const { q } = queue({ batchSize: 3, capacity: 100 }, async (b) => void batches.push([...b]));
    for (let i = 1; i <= 7; i++) q.push(i);
    await q.flush();
    expect(batches.flat()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(batches.every((b) => b.length <= 3)).toBe(true);
    expect(q.size).toBe(0);
  });

  it('keeps a batch whose write failed and writes it at the next flush', async () => {
    let fail = true;
    const written: number[] = [];
    const { q, failures } = queue({ batchSize: 10, capacity: 100 }, async (b) => {
      if (fail) throw new Error('database away');
      written.push(...b);
    });
    q.push(1);
    q.push(2);
    await q.flush();
    expect(failures).toEqual([2]);
    expect(q.size).toBe(2);
    fail = false;
    await q.close();
    expect(written).toEqual([1, 2]);
  });

  it('drops past its capacity instead of growing', async () => {
    const { q, dropped } = queue({ batchSize: 100, capacity: 3 }, () => Promise.reject(new Error('database away')));
    for (let i = 1; i <= 5; i++) q.push(i);
    expect(q.size).toBe(3);
    expect(dropped).toEqual(['4 full', '5 full']);
    await q.close();
  });

  it('drops what comes after close', async () => {
    const written: number[] = [];
    const { q, dropped } = queue({ batchSize: 10, capacity: 100 }, async (b) => void written.push(...b));
    q.push(1);
    await q.close();
    expect(q.push(2)).toBe(false);
    expect(written).toEqual([1]);
    expect(dropped).toEqual(['2 closed']);
  });
});
