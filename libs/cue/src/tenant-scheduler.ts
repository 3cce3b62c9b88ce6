// Which queued call a free worker takes next. Pure bookkeeping, no workers,
// so the policy is specified without threads or clocks.
//
// Policy:
// - Calls queue per tenant (a Project; calls without one share the tenant
//   ''); free workers take calls round-robin across tenants, so one tenant
//   with many queued calls cannot push another tenant's call to the back.
// - A tenant whose call hit the timeout or the memory cap is quarantined.
//   Quarantined tenants together occupy at most `quarantineWorkers` workers
//   (max(1, floor(poolSize / 2))), so runaway CUE never holds the whole pool
//   and healthy tenants keep at least one worker (pools of 2 and more).
// - Quarantine ends `quarantineMs` after the last strike, or when the tenant
//   finishes a call of the op that struck it cleanly (an answer, even a CUE
//   error, within the limits). Only the same op counts: a module build runs
//   mergeValues then evaluate, and the cheap merge must not lift a strike
//   the evaluate earned.

export interface ScheduledJob {
  tenant: string;
  op: string;
}

export interface TenantSchedulerOptions {
  quarantineWorkers: number;
  quarantineMs: number;
  /** Milliseconds; Date.now unless a spec drives it. */
  now?: () => number;
}

interface Strike {
  op: string;
  until: number;
}

export class TenantScheduler<J extends ScheduledJob> {
  // Insertion order is the round-robin order: a tenant served moves to the back.
  private readonly queues = new Map<string, J[]>();
  private readonly strikes = new Map<string, Strike>();
  private readonly now: () => number;
  private queued = 0;

  constructor(private readonly options: TenantSchedulerOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.queued;
  }

  push(job: J): void {
    const q = this.queues.get(job.tenant);
    if (q) q.push(job);
    else this.queues.set(job.tenant, [job]);
    this.queued++;
  }

  /**
   * Removes and returns the call the next free worker should take, given
   * the calls running now; undefined when nothing queued may start.
   */
  next(running: Iterable<J>): J | undefined {
    const capped = this.quarantinedRunning(running) >= this.options.quarantineWorkers;
    for (const [tenant, q] of this.queues) {
      if (capped && this.isQuarantined(tenant)) continue;
      const job = q.shift()!;
      this.queues.delete(tenant);
      if (q.length > 0) this.queues.set(tenant, q);
      this.queued--;
      return job;
    }
    return undefined;
  }

  /** Takes every queued call out (engine closing or failing). */
  drain(): J[] {
    const all = [...this.queues.values()].flat();
    this.queues.clear();
    this.queued = 0;
    return all;
  }

  /** The tenant's call ran into the timeout or the memory cap. */
  strike(job: J): void {
    this.strikes.set(job.tenant, { op: job.op, until: this.now() + this.options.quarantineMs });
  }

  /** The tenant's call finished within the limits. */
  clean(job: J): void {
    if (this.strikes.get(job.tenant)?.op === job.op) this.strikes.delete(job.tenant);
  }

  isQuarantined(tenant: string): boolean {
    const s = this.strikes.get(tenant);
    if (!s) return false;
    if (s.until > this.now()) return true;
    this.strikes.delete(tenant);
    return false;
  }

  /** Running calls whose tenant is quarantined now. */
  quarantinedRunning(running: Iterable<J>): number {
    let n = 0;
    for (const j of running) if (this.isQuarantined(j.tenant)) n++;
    return n;
  }

  quarantinedTenants(): number {
    let n = 0;
    for (const t of [...this.strikes.keys()]) if (this.isQuarantined(t)) n++;
    return n;
  }
}

/** How many workers quarantined tenants may occupy together in a pool of `poolSize`. */
export function quarantineWorkers(poolSize: number): number {
  return Math.max(1, Math.floor(poolSize / 2));
}
