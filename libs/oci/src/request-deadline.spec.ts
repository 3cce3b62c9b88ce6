import { RegistryAbortedError, RegistryTimeoutError } from './errors';
import { RequestDeadline, untilAborted } from './request-deadline';

function aborted(signal: AbortSignal): Promise<void> {
  return signal.aborted ? Promise.resolve() : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

describe('RequestDeadline', () => {
  it('aborts its signal with RegistryTimeoutError naming the request and the deadline', async () => {
    const d = new RequestDeadline('GET', 'http://r/v2/a/manifests/v1', 10);
    await aborted(d.signal);
    expect(d.signal.reason).toBeInstanceOf(RegistryTimeoutError);
    expect(d.signal.reason).toMatchObject({ method: 'GET', url: 'http://r/v2/a/manifests/v1', timeoutMs: 10 });
    expect(() => d.check()).toThrow(RegistryTimeoutError);
    expect(d.wrap(new Error('socket closed'))).toBe(d.signal.reason);
  });

  it("turns the caller's abort into RegistryAbortedError with the reason as cause", () => {
    const caller = new AbortController();
    const d = new RequestDeadline('HEAD', 'http://r/v2/a/manifests/v1', 60_000, caller.signal);
    const reason = new Error('shutdown');
    caller.abort(reason);
    expect(d.signal.reason).toBeInstanceOf(RegistryAbortedError);
    expect((d.signal.reason as Error).cause).toBe(reason);
    d.clear();
  });

  it('starts aborted for an aborted caller signal, and passes other errors through before that', () => {
    const live = new RequestDeadline('GET', 'u', 60_000);
    const other = new Error('other');
    expect(live.wrap(other)).toBe(other);
    live.clear();
    const d = new RequestDeadline('GET', 'u', 60_000, AbortSignal.abort());
    expect(() => d.check()).toThrow(RegistryAbortedError);
    d.clear();
  });

  it('after clear, neither the timer nor the caller aborts it', () => {
    const caller = new AbortController();
    const d = new RequestDeadline('GET', 'u', 60_000, caller.signal);
    d.clear();
    caller.abort();
    expect(d.signal.aborted).toBe(false);
  });
});

describe('untilAborted', () => {
  it('settles like the promise, or rejects with the reason when the signal aborts first', async () => {
    await expect(untilAborted(Promise.resolve(1), new AbortController().signal)).resolves.toBe(1);
    const c = new AbortController();
    const waiting = untilAborted(new Promise(() => undefined), c.signal);
    c.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
  });
});
