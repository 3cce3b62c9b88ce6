// Work on many items, a few at a time, answering by a deadline: an item
// whose work has not finished when `signal` aborts gets `late(item)` at once
// (its work is left to unwind on its own, seeing the same signal), and items
// not started by then are not started.
import { Limiter } from '@flotilla/engine';

export async function boundedFanout<T, R>(items: readonly T[], concurrency: number, signal: AbortSignal, work: (item: T) => Promise<R>, late: (item: T) => R): Promise<R[]> {
  const limiter = new Limiter(concurrency);
  return Promise.all(items.map((item) => limiter.run(() => (signal.aborted ? Promise.resolve(late(item)) : raceAbort(work(item), signal, () => late(item))))));
}

function raceAbort<R>(work: Promise<R>, signal: AbortSignal, late: () => R): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    const onAbort = () => resolve(late());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (r) => {
        signal.removeEventListener('abort', onAbort);
        resolve(r);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
