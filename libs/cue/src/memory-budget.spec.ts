import { CueMemoryBudgetError } from './errors';
import { cueMemoryBudget, MIN_WORKER_BYTES, WORKER_OVERHEAD_BYTES } from './memory-budget';

const MiB = 1048576;
const GiB = 1024 * MiB;

/** What the pool can take at worst: every worker at its cap, heap and overhead. */
const worstCase = (b: ReturnType<typeof cueMemoryBudget>) => b.poolSize * (b.memoryLimitBytes + b.workerHeapMb * MiB + WORKER_OVERHEAD_BYTES);

describe('cueMemoryBudget', () => {
  it('keeps the unlimited defaults when the container has no limit', () => {
    expect(cueMemoryBudget({ limitBytes: null, cpus: 8, reserveBytes: 384 * MiB })).toEqual({ poolSize: 8, memoryLimitBytes: GiB, workerHeapMb: 512, recycleAboveBytes: 512 * MiB });
  });

  it('fits the hub\'s pool beside its reserve in the chart\'s 1 GiB', () => {
    const b = cueMemoryBudget({ limitBytes: GiB, cpus: 2, reserveBytes: 384 * MiB });
    expect(b.poolSize).toBe(2);
    expect(worstCase(b) + 384 * MiB).toBeLessThanOrEqual(GiB);
    expect(b.memoryLimitBytes).toBeGreaterThanOrEqual(128 * MiB);
    expect(b.memoryLimitBytes % 65536).toBe(0);
    expect(b.recycleAboveBytes).toBeLessThan(b.memoryLimitBytes);
  });

  it('gives the agent in its 512 MiB one worker, however many CPUs', () => {
    const b = cueMemoryBudget({ limitBytes: 512 * MiB, cpus: 16, reserveBytes: 192 * MiB });
    expect(b.poolSize).toBe(1);
    expect(worstCase(b) + 192 * MiB).toBeLessThanOrEqual(512 * MiB);
  });

  it('takes one worker per CPU while each gets its minimum, and never more than a CPU each', () => {
    expect(cueMemoryBudget({ limitBytes: 64 * GiB, cpus: 4, reserveBytes: GiB }).poolSize).toBe(4);
    expect(cueMemoryBudget({ limitBytes: 2 * GiB, cpus: 32, reserveBytes: 512 * MiB }).poolSize).toBe(Math.floor((1536 * MiB) / MIN_WORKER_BYTES));
    // a large container: the caps stop at the unlimited defaults
    const big = cueMemoryBudget({ limitBytes: 64 * GiB, cpus: 4, reserveBytes: GiB });
    expect(big.memoryLimitBytes).toBe(GiB);
    expect(big.workerHeapMb).toBe(512);
  });

  it('holds for every limit and CPU count it accepts', () => {
    for (let limit = 512 * MiB; limit <= 8 * GiB; limit += 37 * MiB) {
      for (const cpus of [1, 2, 3, 8]) {
        const b = cueMemoryBudget({ limitBytes: limit, cpus, reserveBytes: 256 * MiB });
        expect(worstCase(b) + 256 * MiB).toBeLessThanOrEqual(limit);
        expect(b.poolSize).toBeGreaterThanOrEqual(1);
        expect(b.poolSize).toBeLessThanOrEqual(cpus);
      }
    }
  });

  it('splits the memory over a pool size the operator set, and refuses one that does not fit', () => {
    const b = cueMemoryBudget({ limitBytes: 2 * GiB, cpus: 2, reserveBytes: 512 * MiB, poolSize: 4 });
    expect(b.poolSize).toBe(4);
    expect(worstCase(b) + 512 * MiB).toBeLessThanOrEqual(2 * GiB);
    expect(() => cueMemoryBudget({ limitBytes: GiB, cpus: 2, reserveBytes: 512 * MiB, poolSize: 4 })).toThrow(CueMemoryBudgetError);
  });

  it('refuses a limit that leaves no room for one worker, saying what to change', () => {
    const err = (() => {
      try {
        cueMemoryBudget({ limitBytes: 256 * MiB, cpus: 2, reserveBytes: 192 * MiB });
      } catch (e) {
        return e as Error;
      }
      throw new Error('expected a CueMemoryBudgetError');
    })();
    expect(err).toBeInstanceOf(CueMemoryBudgetError);
    expect(err.message).toContain('memory limit of 256 MiB leaves 64 MiB for CUE after the reserve of 192 MiB');
    expect(err.message).toContain('raise the container\'s memory limit');
  });
});
