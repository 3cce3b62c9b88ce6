import { DeadlineExceeded, withDeadline } from './deadline';

describe('withDeadline', () => {
  it('returns the work result and passes a live signal', async () => {
    const out = await withDeadline(1000, undefined, async (signal) => (signal.aborted ? 'aborted' : 'ok'));
    expect(out).toBe('ok');
  });

  it('rejects with DeadlineExceeded and aborts the signal even if the work ignores it', async () => {
    let seen: AbortSignal | undefined;
    const err = await withDeadline(50, undefined, (signal) => {
      seen = signal;
      return new Promise(() => undefined);
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlineExceeded);
    expect((err as DeadlineExceeded).timeoutMs).toBe(50);
    expect(seen?.aborted).toBe(true);
  });

  it('with a grace, waits for work unwinding from the abort, and still rejects with DeadlineExceeded', async () => {
    let unwound = false;
    const err = await withDeadline(
      50,
      undefined,
      (signal) =>
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => setTimeout(() => { unwound = true; reject(new Error('GET aborted')); }, 20)),
        ),
      500,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlineExceeded);
    expect(unwound).toBe(true);
  });

  it('with a grace, gives up on work that ignores the signal once the grace is over', async () => {
    const t0 = Date.now();
    const err = await withDeadline(50, undefined, () => new Promise(() => undefined), 100).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlineExceeded);
    // it waited out the deadline and the grace (a lower bound: a busy machine only adds)
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('follows the parent signal', async () => {
    const parent = new AbortController();
    const p = withDeadline(10_000, parent.signal, () => new Promise(() => undefined));
    parent.abort(new Error('shutdown'));
    await expect(p).rejects.toThrow('shutdown');
  });

  it('rejects at once when the parent is already aborted', async () => {
    await expect(withDeadline(10_000, AbortSignal.abort(new Error('gone')), () => new Promise(() => undefined))).rejects.toThrow('gone');
  });
});
