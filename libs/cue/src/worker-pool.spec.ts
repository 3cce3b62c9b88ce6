import { CueEngine } from './engine';
import { CueMemoryLimitError, CueTimeoutError } from './errors';
import { blockingCall, spinningCall, untilAllReady } from './test-support';
import type { PoolEvent } from './worker-pool';

// Runaway calls are test ops that allocate nothing (a Go loop, or a worker
// held until the spec releases it), so only the limit under test can stop them,
// however fast or busy the machine is.
const ok = { files: { 'a.cue': 'package main\nx: 1 + 1\n' }, exports: [{ path: 'x' }] };
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

  it('stops a call running in Go at the timeout and replaces the worker', async () => {
    const before = engine.stats().replaced;
    const err = await spinningCall(engine, 500);
    expect(err).toBeInstanceOf(CueTimeoutError);
    expect((err as CueTimeoutError).timeoutMs).toBe(500);
    expect(engine.stats().replaced).toBe(before + 1);
  });

  it('stops a worker held outside wasm at the timeout', async () => {
    const blocked = blockingCall(engine, undefined, 1500);
    const err = await blocked.done;
    expect(err).toBeInstanceOf(CueTimeoutError);
    expect((err as CueTimeoutError).timeoutMs).toBe(1500);
  });

  it('recovers: the pool serves calls again, in parallel, after a timeout', async () => {
    await spinningCall(engine, 300);
    const results = await Promise.all([1, 2, 3, 4].map(() => engine.evaluate(ok)));
    expect(results.map((r) => r.exports[0].json)).toEqual(['2', '2', '2', '2']);
    expect(engine.stats()).toMatchObject({ size: 2, busy: 0, queued: 0 });
  });

  it('stops an evaluation at the memory cap and recovers', async () => {
    const err = await engine.evaluate(hog, { timeoutMs: 110_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CueMemoryLimitError);
    expect((err as Error).message).toContain('256 MiB');
    const res = await engine.evaluate(ok);
    expect(res.exports[0].json).toBe('2');
  }, 120_000);

  it('lets a short call through while another worker is stuck', async () => {
    await untilAllReady(engine);
    const events: PoolEvent[] = [];
    const stop = engine.observe((e) => events.push(e));
    const stuck = blockingCall(engine);
    let stuckSettled = false;
    void stuck.done.then(() => (stuckSettled = true));
    const res = await engine.evaluate(ok);
    stop();
    expect(res.exports[0].json).toBe('2');
    expect(events.map((e) => e.type === 'dispatch' && e.op)).toEqual(['test.block', 'evaluate']);
    expect(stuckSettled).toBe(false);
    expect(engine.stats().busy).toBe(1);
    stuck.release();
    expect(await stuck.done).toBe('{"ok":true,"result":{}}');
  });
});
