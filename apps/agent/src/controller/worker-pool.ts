// N workers over a work queue: get a key, handle it, mark it done. A throwing
// handler is reported and the worker goes on. Resolves once every worker has
// finished its current key after the queue shut down or the signal aborted.
import type { WorkQueue } from './work-queue';

export interface WorkerPoolOptions {
  onError(err: unknown, key: string): void;
}

export async function runWorkers(
  queue: WorkQueue,
  concurrency: number,
  handle: (key: string, signal: AbortSignal) => Promise<void>,
  signal: AbortSignal,
  options: WorkerPoolOptions,
): Promise<void> {
  const worker = async () => {
    for (;;) {
      const key = await queue.get(signal);
      if (key === undefined) return;
      try {
        await handle(key, signal);
      } catch (err) {
        options.onError(err, key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
