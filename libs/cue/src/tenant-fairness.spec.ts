import { CueEngine } from './engine';
import { CueTimeoutError } from './errors';
import { blockingCall, spinningCall, untilAllReady, type BlockedCall } from './test-support';
import type { PoolEvent } from './worker-pool';

// The pool shared between tenants, observed through its dispatch events:
// blocked calls are held and released by the spec, so the order in which
// workers take calls is decided by the scheduler alone, not by timing.
const ok = { files: { 'a.cue': 'package main\nx: 1 + 1\n' }, exports: [{ path: 'x' }] };

describe('WorkerPool shared between tenants', () => {
  let engine: CueEngine;
  let dispatched: Array<Extract<PoolEvent, { type: 'dispatch' }>>;
  let stop: () => void;
  beforeEach(async () => {
    engine = await CueEngine.start({ poolSize: 2, timeoutMs: 120_000 });
    dispatched = [];
    stop = engine.observe((e) => {
      if (e.type === 'dispatch') dispatched.push(e);
    });
  });
  afterEach(async () => {
    stop();
    await engine.close();
  });

  /** Quarantines `tenant`: its call runs into the timeout. */
  async function quarantine(tenant: string): Promise<void> {
    expect(await spinningCall(engine, 200, tenant)).toBeInstanceOf(CueTimeoutError);
    expect(engine.stats().quarantinedTenants).toBe(1);
    await untilAllReady(engine);
    dispatched.length = 0;
  }

  /** Releases held calls one at a time, always the one that started first, until all ran. */
  async function releaseInStartOrder(calls: Map<string, BlockedCall[]>): Promise<void> {
    const released = new Set<BlockedCall>();
    const total = [...calls.values()].flat().length;
    while (released.size < total) {
      const seen = new Map<string, number>();
      const started = dispatched
        .filter((e) => e.op === 'test.block')
        .map((e) => {
          const n = seen.get(e.tenant) ?? 0;
          seen.set(e.tenant, n + 1);
          return calls.get(e.tenant)![n];
        });
      const next = started.find((c) => !released.has(c));
      if (!next) {
        await new Promise((r) => setTimeout(r, 10)); // a worker is being replaced or finishing a healthy call
        continue;
      }
      released.add(next);
      next.release();
      await next.done;
    }
  }

  /** Index in `order` of the n-th (1-based) occurrence of `tenant`; -1 when absent. */
  function at(order: string[], tenant: string, n: number): number {
    let seen = 0;
    return order.findIndex((t) => t === tenant && ++seen === n);
  }

  it("serves a healthy tenant's call before the blocked tenants' later calls, quarantined tenants on one worker", async () => {
    await quarantine('runaway');
    const calls = new Map<string, BlockedCall[]>();
    const hold = (tenant: string) => {
      const c = blockingCall(engine, tenant);
      calls.set(tenant, [...(calls.get(tenant) ?? []), c]);
    };
    hold('a');
    hold('b');
    expect(dispatched.map((e) => e.tenant)).toEqual(['a', 'b']);
    for (const t of ['a', 'a', 'a', 'b', 'b', 'b', 'runaway', 'runaway', 'runaway']) hold(t);
    const healthy = engine.evaluate(ok, { tenant: 'healthy' });
    expect(engine.stats()).toMatchObject({ busy: 2, queued: 10 });

    await releaseInStartOrder(calls);
    expect((await healthy).exports[0].json).toBe('2');

    const order = dispatched.map((e) => e.tenant);
    expect(order).toHaveLength(12);
    // Round-robin: first in a FIFO pool it would have gone out last.
    expect(at(order, 'healthy', 1)).toBeLessThan(at(order, 'a', 3));
    expect(at(order, 'healthy', 1)).toBeLessThan(at(order, 'b', 3));
    expect(at(order, 'healthy', 1)).toBeLessThan(at(order, 'runaway', 2));
    expect(dispatched.filter((e) => e.tenant === 'runaway').every((e) => e.quarantined)).toBe(true);
    for (const e of dispatched) expect(e.quarantinedBusy).toBeLessThanOrEqual(1);
  });

  it('keeps a worker free of quarantined tenants even when they alone have calls queued', async () => {
    await quarantine('runaway');
    const held = [1, 2, 3].map(() => blockingCall(engine, 'runaway'));
    // With a free worker, an unquarantined second call would have started at once.
    expect(dispatched.map((e) => e.tenant)).toEqual(['runaway']);
    expect(engine.stats()).toMatchObject({ busy: 1, queued: 2, quarantinedBusy: 1 });

    expect((await engine.evaluate(ok, { tenant: 'healthy' })).exports[0].json).toBe('2');
    expect(dispatched.map((e) => e.tenant)).toEqual(['runaway', 'healthy']);

    for (const call of held) {
      call.release();
      await call.done;
    }
    expect(dispatched.map((e) => e.tenant)).toEqual(['runaway', 'healthy', 'runaway', 'runaway']);
    expect(Math.max(...dispatched.map((e) => e.quarantinedBusy))).toBe(1);
    // Clean calls of another op do not end the quarantine the spin earned.
    expect(engine.stats().quarantinedTenants).toBe(1);
  });

  it('ends the quarantine after a clean call of the op that hit the limit', async () => {
    const err = await blockingCall(engine, 'runaway', 200).done;
    expect(err).toBeInstanceOf(CueTimeoutError);
    expect(engine.stats().quarantinedTenants).toBe(1);
    await untilAllReady(engine);
    const call = blockingCall(engine, 'runaway');
    call.release();
    await call.done;
    expect(engine.stats().quarantinedTenants).toBe(0);
    const both = [blockingCall(engine, 'runaway'), blockingCall(engine, 'runaway')];
    expect(engine.stats()).toMatchObject({ busy: 2, quarantinedBusy: 0 });
    for (const c of both) {
      c.release();
      await c.done;
    }
  });
});
