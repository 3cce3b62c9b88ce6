import { getEventListeners } from 'node:events';
import { dependantCount, linkedSignal } from './linked-signal';

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

  it('adds one listener to a long-lived source however many signals it feeds, and forgets them once unlinked or aborted', () => {
    const shutdown = new AbortController();
    const runs = Array.from({ length: 50 }, () => linkedSignal([shutdown.signal, new AbortController().signal]));
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
    expect(dependantCount(shutdown.signal)).toBe(50);
    for (const r of runs) r.unlink();
    expect(dependantCount(shutdown.signal)).toBe(0);

    const lease = new AbortController();
    linkedSignal([shutdown.signal, lease.signal]);
    lease.abort();
    expect(dependantCount(shutdown.signal)).toBe(0);
  });

  it('aborts every signal still linked to a source when it aborts, and none that was unlinked', () => {
    const shutdown = new AbortController();
    const kept = Array.from({ length: 3 }, () => linkedSignal([shutdown.signal]));
    const unlinked = linkedSignal([shutdown.signal]);
    unlinked.unlink();
    shutdown.abort(new Error('stopping'));
    expect(kept.map((k) => (k.signal.reason as Error).message)).toEqual(['stopping', 'stopping', 'stopping']);
    expect(unlinked.signal.aborted).toBe(false);
    // a signal linked after the source aborted is aborted at once
    expect(linkedSignal([shutdown.signal]).signal.aborted).toBe(true);
  });
});
