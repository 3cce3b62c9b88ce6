import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Coalescer, eachOnFailure } from '../common/coalescer';
import { LeaseBatchRepository, type RunFinish, type RunProgressNote, type RunStart } from './lease-batch.repository';
import { type Lease, LeaseRepository, type RunOutcome } from './lease.repository';

/** Start and finish writes of runs gather this long (a digest starts a fleet's push runs at once). */
const RUN_WINDOW_MS = 10;
/** Renewals are not urgent: a lease lives a few renewal periods. */
const RENEW_WINDOW_MS = 50;
const MAX_ROWS = 500;

/**
 * The run writes of Targets, in batches (LeaseBatchRepository): the same
 * calls and answers as LeaseRepository's single writes. A fleet's runs start,
 * note progress and finish together, a few statements each: batched, a
 * digest costs PostgreSQL (and the hub's socket writes) a few statements per
 * batch instead. A batch that fails (a deadlock, one bad row) is written
 * again one run at a time, so a run fails only for its own reason.
 */
@Injectable()
export class BatchedRunWrites {
  private readonly starts: Coalescer<RunStart, { id: string; startedAt: Date } | null>;
  private readonly finishes: Coalescer<RunFinish, boolean>;
  private readonly notes: Coalescer<RunProgressNote, boolean>;
  private readonly renewals = new Map<number, Coalescer<Lease, boolean>>();

  constructor(
    private readonly batch: LeaseBatchRepository,
    private readonly single: LeaseRepository,
  ) {
    this.starts = new Coalescer((items) => eachOnFailure(() => batch.startRuns(items), items, (i) => single.startRun(i.lease, i.row)), { windowMs: RUN_WINDOW_MS, maxItems: MAX_ROWS });
    this.finishes = new Coalescer((items) => eachOnFailure(() => batch.finishRuns(items), items, (i) => single.finishRun(i.lease, i.outcome, i.whenHeld)), { windowMs: RUN_WINDOW_MS, maxItems: MAX_ROWS });
    this.notes = new Coalescer((items) => eachOnFailure(() => batch.progressAll(items), items, (i) => single.progress(i.lease, i.row)), { windowMs: RUN_WINDOW_MS, maxItems: MAX_ROWS });
  }

  startRun(lease: Lease, row: RunStart['row']): Promise<{ id: string; startedAt: Date } | null> {
    return this.starts.add({ lease, row });
  }

  finishRun(lease: Lease, outcome: RunOutcome, whenHeld?: (m: EntityManager) => Promise<void>): Promise<boolean> {
    return this.finishes.add({ lease, outcome, whenHeld });
  }

  /** As LeaseRepository.progress. One note per run at a time (a second for the same Target in one batch would race the first). */
  progress(lease: Lease, row: RunProgressNote['row']): Promise<boolean> {
    return this.notes.add({ lease, row });
  }

  /** As LeaseRepository.renew; one batch per TTL (the scheduler uses one). */
  renew(lease: Lease, ttlMs: number): Promise<boolean> {
    let c = this.renewals.get(ttlMs);
    if (!c) {
      c = new Coalescer((leases) => eachOnFailure(() => this.batch.renewAll(leases, ttlMs), leases, (l) => this.single.renew(l, ttlMs)), { windowMs: RENEW_WINDOW_MS, maxItems: MAX_ROWS * 2 });
      this.renewals.set(ttlMs, c);
    }
    return c.add(lease);
  }
}
