import { getEventListeners } from 'node:events';
import { linkedSignal } from './linked-signal';

describe('linkedSignal', () => {
  it('aborts with the reason of the first source that aborts', () => {
    const a = new AbortController();
    const b = new AbortController();
    const { signal } = linkedSignal([a.signal, b.signal]);
    expect(signal.aborted).toBe(false);
    b.abort(new Error('lease lost'));
    a.abort(new Error('shutdown'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('lease lost');
  });

  it('is aborted at once when a source already is', () => {
    const a = new AbortController();
    a.abort('gone');
    expect(linkedSignal([new AbortController().signal, a.signal]).signal.reason).toBe('gone');
  });

  it('leaves no listener on a long-lived source once unlinked, or once it aborted', () => {
    const shutdown = new AbortController();
    const runs = Array.from({ length: 50 }, () => linkedSignal([shutdown.signal, new AbortController().signal]));
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(50);
    for (const r of runs) r.unlink();
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);

    const lease = new AbortController();
    linkedSignal([shutdown.signal, lease.signal]);
    lease.abort();
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });
});
