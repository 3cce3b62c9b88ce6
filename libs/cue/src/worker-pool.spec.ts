import { CueEngine } from './engine';
import { CueMemoryLimitError, CueTimeoutError } from './errors';

const ok = { files: { 'a.cue': 'package main\nx: 1 + 1\n' }, exports: [{ path: 'x' }] };
// CPU-bound and small in memory: a long comprehension that keeps nothing.
const spin = {
  files: { 'a.cue': 'package main\nimport "list"\nn: len([for i in list.Range(0, 200000000, 1) if i < 0 {i}])\n' },
  exports: [{ path: 'n' }],
};
// Memory-bound: a huge list that must be materialized.
const hog = {
  files: { 'a.cue': 'package main\nimport "list"\nbig: [for i in list.Range(0, 50000000, 1) {"item-\\(i)"}]\n' },
  exports: [{ path: 'big' }],
};

describe('WorkerPool limits', () => {
  let engine: CueEngine;
  beforeAll(async () => {
    engine = await CueEngine.start({ poolSize: 2, timeoutMs: 1500, memoryLimitBytes: 256 * 1048576, recycleAboveBytes: 200 * 1048576 });
  });
  afterAll(() => engine.close());

  it('stops a runaway evaluation at the timeout and replaces the worker', async () => {
    const before = engine.stats().replaced;
    const t0 = performance.now();
    const err = await engine.evaluate(spin).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CueTimeoutError);
    expect((err as CueTimeoutError).timeoutMs).toBe(1500);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(engine.stats().replaced).toBe(before + 1);
  });

  it('recovers: the pool serves calls again, in parallel, after a timeout', async () => {
    await engine.evaluate(spin, { timeoutMs: 300 }).catch(() => undefined);
    const results = await Promise.all([1, 2, 3, 4].map(() => engine.evaluate(ok)));
    expect(results.map((r) => r.exports[0].json)).toEqual(['2', '2', '2', '2']);
    expect(engine.stats()).toMatchObject({ size: 2, busy: 0, queued: 0 });
  });

  it('stops an evaluation at the memory cap and recovers', async () => {
    const err = await engine.evaluate(hog, { timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CueMemoryLimitError);
    expect((err as Error).message).toContain('256 MiB');
    const res = await engine.evaluate(ok);
    expect(res.exports[0].json).toBe('2');
  });

  it('lets a short call through while another worker is stuck', async () => {
    const stuck = engine.evaluate(spin, { timeoutMs: 3000 }).catch((e: unknown) => e);
    const t0 = performance.now();
    const res = await engine.evaluate(ok);
    expect(res.exports[0].json).toBe('2');
    expect(performance.now() - t0).toBeLessThan(2500);
    expect(await stuck).toBeInstanceOf(CueTimeoutError);
  });
});
