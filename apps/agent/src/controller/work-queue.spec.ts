import { WorkQueue, type WorkQueueClock } from './work-queue';
import { runWorkers } from './worker-pool';

/** A clock the spec moves by hand: timers fire only in `advance`. */
class ManualClock implements WorkQueueClock {
  private t = 0;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 0;
  now(): number {
    return this.t;
  }
  setTimer(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimer(handle: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }
  advance(ms: number): void {
    this.t += ms;
    const due = this.timers.filter((x) => x.at <= this.t).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const x of due) x.fn();
  }
}

describe('WorkQueue', () => {
  let clock: ManualClock;
  let queue: WorkQueue;
  beforeEach(() => {
    clock = new ManualClock();
    queue = new WorkQueue({ clock, rateLimit: { baseMs: 10, maxMs: 100 } });
  });

  it('queues a waiting key once, in FIFO order', async () => {
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.len()).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
    expect(queue.len()).toBe(0);
  });

  it('never hands a key being processed to a second worker; a change meanwhile re-queues it once done', async () => {
    queue.add('a');
    expect(await queue.get()).toBe('a');
    queue.add('a');
    queue.add('a');
    expect(queue.len()).toBe(0);
    const second = queue.get();
    queue.done('a');
    expect(await second).toBe('a');
    queue.done('a');
    expect(queue.len()).toBe(0);
  });

  it('adds a delayed key when its time comes; the earliest requested time wins', async () => {
    queue.addAfter('a', 100);
    queue.addAfter('a', 30);
    queue.addAfter('a', 50);
    expect(queue.delayedLen()).toBe(1);
    clock.advance(29);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(queue.len()).toBe(1);
    expect(queue.delayedLen()).toBe(0);
    expect(await queue.get()).toBe('a');
  });

  it('makes a delayed key due at once on add', () => {
    queue.addAfter('a', 100);
    queue.add('a');
    expect(queue.len()).toBe(1);
    expect(queue.delayedLen()).toBe(0);
    clock.advance(100);
    expect(queue.len()).toBe(1);
  });

  it('backs failures off per key, doubling to the cap, until forgotten', async () => {
    const dueAfter = async () => {
      queue.addRateLimited('a');
      let waited = 0;
      while (queue.len() === 0 && waited < 1000) {
        clock.advance(1);
        waited++;
      }
      queue.done((await queue.get())!);
      return waited;
    };
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) delays.push(await dueAfter());
    expect(delays).toEqual([10, 20, 40, 80, 100]);
    expect(queue.failures('a')).toBe(5);
    queue.forget('a');
    expect(queue.failures('a')).toBe(0);
    expect(await dueAfter()).toBe(10);
  });

  it('wakes waiting workers with undefined on shutdown and ignores later adds', async () => {
    const waiting = [queue.get(), queue.get()];
    queue.shutDown();
    expect(await Promise.all(waiting)).toEqual([undefined, undefined]);
    queue.add('a');
    queue.addAfter('b', 1);
    expect(queue.len()).toBe(0);
    expect(queue.delayedLen()).toBe(0);
  });

  it('resolves a waiting get with undefined when its signal aborts', async () => {
    const abort = new AbortController();
    const waiting = queue.get(abort.signal);
    abort.abort();
    expect(await waiting).toBeUndefined();
    queue.add('a');
    expect(await queue.get()).toBe('a');
  });

  it('reports depth, adds, retries, latency and work time', async () => {
    const seen = { depth: [] as number[], added: 0, retried: 0, latency: [] as number[], work: [] as number[] };
    const q = new WorkQueue({
      clock,
      observer: { depth: (n) => seen.depth.push(n), added: () => seen.added++, retried: () => seen.retried++, latency: (ms) => seen.latency.push(ms), workDuration: (ms) => seen.work.push(ms) },
    });
    q.add('a');
    q.add('b');
    clock.advance(5);
    const key = await q.get();
    clock.advance(7);
    q.done(key!);
    q.addRateLimited('a');
    expect(seen).toMatchObject({ depth: [1, 2, 1], added: 2, retried: 1, latency: [5], work: [7] });
  });
});

describe('runWorkers', () => {
  it('runs at most `concurrency` keys at once, never one key twice at once, and stops when the queue shuts down', async () => {
    const queue = new WorkQueue();
    const release = new Map<string, () => void>();
    let running = 0;
    let most = 0;
    const handled: string[] = [];
    const stop = new AbortController();
    const pool = runWorkers(
      queue,
      2,
      (key) => {
        running++;
        most = Math.max(most, running);
        handled.push(key);
        return new Promise<void>((resolve) =>
          release.set(key, () => {
            running--;
            resolve();
          }),
        );
      },
      stop.signal,
      { onError: () => undefined },
    );
    for (const k of ['a', 'b', 'c']) queue.add(k);
    const until = async (check: () => boolean) => {
      while (!check()) await new Promise((r) => setImmediate(r));
    };
    await until(() => release.has('a') && release.has('b'));
    expect(release.has('c')).toBe(false);
    queue.add('a');
    release.get('a')!();
    release.delete('a');
    await until(() => release.has('c'));
    release.get('b')!();
    release.delete('b');
    // 'a' was re-added while it ran: it comes again, after its first run ended
    await until(() => release.has('a'));
    expect(handled).toEqual(['a', 'b', 'c', 'a']);
    expect(most).toBe(2);
    release.get('c')!();
    release.get('a')!();
    queue.shutDown();
    await pool;
  });

  it('reports a throwing handler and goes on', async () => {
    const queue = new WorkQueue();
    const errors: string[] = [];
    const done: string[] = [];
    const stop = new AbortController();
    const pool = runWorkers(
      queue,
      1,
      async (key) => {
        if (key === 'bad') throw new Error('boom');
        done.push(key);
        if (key === 'last') stop.abort();
      },
      stop.signal,
      { onError: (err, key) => errors.push(`${key}: ${(err as Error).message}`) },
    );
    queue.add('bad');
    queue.add('good');
    queue.add('last');
    await pool;
    expect(errors).toEqual(['bad: boom']);
    expect(done).toEqual(['good', 'last']);
  });
});
