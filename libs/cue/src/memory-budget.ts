// How many CUE workers a process can afford and how much memory each may
// take, from the container's memory limit. A worker's worst case is its cap
// (wasm linear memory, or the native helper's mapped memory) plus its V8
// heap plus a fixed overhead; the pool's worst case plus the main process's
// reserve stays under the limit, so no content gets the process OOM-killed.
import { CueMemoryBudgetError } from './errors';
import type { CueEngineOptions } from './options';

const MiB = 1048576;

/** What a worker costs besides its cap and heap: thread or process, stacks, the wasm instance's tables. */
export const WORKER_OVERHEAD_BYTES = 48 * MiB;
/** The least memory one worker gets; below it ordinary modules no longer evaluate. */
export const MIN_WORKER_BYTES = 256 * MiB;
/** Caps that hold when the container sets no limit (a worker never needs more). */
const MAX_CAP_BYTES = 1024 * MiB;
const MAX_HEAP_MB = 512;
const MIN_HEAP_MB = 64;

export interface CueMemoryBudgetInput {
  /** The container's memory limit in bytes; null: none. */
  limitBytes: number | null;
  /** CPUs the process may use: one worker each, at most. */
  cpus: number;
  /** Left to the rest of the process (Node's heap, sockets, caches); not given to CUE. */
  reserveBytes: number;
  /** A pool size set by the operator instead of one per CPU the memory allows. */
  poolSize?: number;
}

export type CueMemoryBudget = Pick<CueEngineOptions, 'poolSize' | 'memoryLimitBytes' | 'workerHeapMb' | 'recycleAboveBytes'>;

/**
 * The pool for this container: one worker per CPU while each still gets
 * MIN_WORKER_BYTES, each worker's share split into its V8 heap (a quarter)
 * and its CUE memory cap (the rest, after the overhead). Throws
 * CueMemoryBudgetError when not even one worker (or the operator's pool
 * size) fits beside the reserve.
 */
export function cueMemoryBudget(input: CueMemoryBudgetInput): CueMemoryBudget {
  const cpus = Math.max(1, Math.floor(input.cpus));
  if (input.limitBytes === null) {
    const poolSize = input.poolSize ?? cpus;
    return { poolSize, memoryLimitBytes: MAX_CAP_BYTES, workerHeapMb: MAX_HEAP_MB, recycleAboveBytes: MAX_CAP_BYTES / 2 };
  }
  const available = input.limitBytes - input.reserveBytes;
  const fits = Math.floor(available / MIN_WORKER_BYTES);
  const poolSize = input.poolSize ?? Math.min(cpus, fits);
  if (poolSize < 1 || poolSize > fits) {
    throw new CueMemoryBudgetError(input.limitBytes, input.reserveBytes, input.poolSize === undefined ? 1 : input.poolSize, MIN_WORKER_BYTES);
  }
  const share = Math.floor(available / poolSize);
  const workerHeapMb = Math.min(MAX_HEAP_MB, Math.max(MIN_HEAP_MB, Math.floor(share / 4 / MiB)));
  const cap = Math.min(MAX_CAP_BYTES, share - workerHeapMb * MiB - WORKER_OVERHEAD_BYTES);
  // whole wasm pages, so the module's maximum is exactly the cap
  const memoryLimitBytes = Math.floor(cap / 65536) * 65536;
  return { poolSize, memoryLimitBytes, workerHeapMb, recycleAboveBytes: Math.floor(memoryLimitBytes / 2) };
}
