// Keeps one claimed lease alive from the moment of the claim until the run
// has written its result: renewed every third of its TTL, so time spent
// before the run starts (reads, a busy CPU) never lets it lapse. When a
// renewal finds the lease taken over, `signal` aborts the run.
import type { Lease, LeaseRepository } from './lease.repository';

/** Thrown into a run's signal when its lease was taken over. */
export class LeaseLostError extends Error {
  constructor(targetId: string) {
    super(`lease on Target ${targetId} was lost`);
    this.name = 'LeaseLostError';
  }
}

export class LeaseKeeper {
  private readonly lost = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private renewing: Promise<void> | undefined;

  constructor(
    /** one lease's renewals, or a batch writer's (BatchedRunWrites) */
    private readonly leases: Pick<LeaseRepository, 'renew'>,
    readonly lease: Lease,
    ttlMs: number,
    onError: (err: unknown) => void,
  ) {
    this.timer = setInterval(() => {
      // one renewal at a time: a slow database must not pile them up
      this.renewing ??= this.leases
        .renew(lease, ttlMs)
        .then(
          (held) => {
            if (!held) this.lost.abort(new LeaseLostError(lease.targetId));
          },
          onError,
        )
        .finally(() => (this.renewing = undefined));
    }, Math.max(100, Math.floor(ttlMs / 3)));
  }

  /** Aborted when a renewal found the lease taken over. */
  get signal(): AbortSignal {
    return this.lost.signal;
  }

  /** Stops renewing; waits for a renewal in flight, so none lands after the result. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.renewing;
  }
}
