import { returnedRows } from '../repositories/sql';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { reportedInstances, type ReportComponent } from '@flotilla/engine';
import type { Condition } from '../database/entities';
import type { Lease, RunOutcome, RunStartRow } from './lease.repository';

export interface RunStart {
  lease: Lease;
  row: RunStartRow;
}

export interface RunFinish {
  lease: Lease;
  outcome: RunOutcome;
  whenHeld?: (m: EntityManager) => Promise<void>;
}

export interface RunProgressNote {
  lease: Lease;
  row: { conditions: Condition[]; components: ReportComponent[] };
}

/** Rows go to PostgreSQL as one JSON array, read back with jsonb_to_recordset (works the same on PGlite). */
const json = (rows: unknown[]) => JSON.stringify(rows);

/**
 * LeaseRepository's run writes for many leases at once, each with the same
 * meaning and the same fencing as the single one (see there): one
 * transaction and a few statements per batch instead of per run. Rows are
 * locked in id order so two batches never deadlock on each other.
 */
@Injectable()
export class LeaseBatchRepository {
  constructor(private readonly ds: DataSource) {}

  /** startRun for each; null where the lease is no longer held. */
  async startRuns(items: readonly RunStart[]): Promise<Array<{ id: string; startedAt: Date } | null>> {
    return this.ds.transaction(async (m) => {
      const held = await this.lockHeld(m, items.map((i) => i.lease));
      const starting = items.filter((i) => held.has(i.lease.targetId));
      if (starting.length === 0) return items.map(() => null);
      await m.query(
        `UPDATE targets t SET phase = CASE WHEN t.removal_requested_at IS NOT NULL THEN 'Deleting' ELSE x.phase END, conditions = x.conditions
         FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, phase text, conditions jsonb) WHERE t.id = x.id`,
        [json(starting.map((i) => ({ id: i.lease.targetId, phase: i.row.phase, conditions: i.row.conditions })))],
      );
      const inserted: Array<{ id: string; target_id: string; started_at: Date }> = await m.query(
        `INSERT INTO runs (target_id, generation, revision, trigger, lease_owner, started_at, result)
         SELECT x.id, x.generation, x.revision, x.trigger, x.owner, COALESCE(x.started_at, clock_timestamp()), 'Running'
         FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, generation int, revision text, trigger text, owner text, started_at timestamptz)
         RETURNING id, target_id, started_at`,
        [json(starting.map((i) => ({ id: i.lease.targetId, generation: i.row.generation, revision: i.row.revision, trigger: i.row.trigger, owner: i.lease.owner, started_at: i.row.startedAt?.toISOString() ?? null })))],
      );
      const byTarget = new Map(inserted.map((r) => [r.target_id, { id: r.id, startedAt: new Date(r.started_at) }]));
      return items.map((i) => (held.has(i.lease.targetId) ? (byTarget.get(i.lease.targetId) ?? null) : null));
    });
  }

  /** finishRun for each, `whenHeld` of each held one in the same transaction; false where the lease was lost. */
  async finishRuns(items: readonly RunFinish[]): Promise<boolean[]> {
    return this.ds.transaction(async (m) => {
      await this.lockHeld(m, items.map((i) => i.lease));
      const res = await m.query(
        `UPDATE targets t SET
           phase = CASE WHEN t.phase IN ('Suspended', 'Deleting') OR x.phase = 'Deleting' AND t.phase <> 'Deleting' THEN t.phase ELSE x.phase END,
           conditions = x.conditions, components = COALESCE(x.components, t.components), attempt = x.attempt,
           observed_generation = x.observed, last_applied_revision = CASE WHEN x.applied THEN x.revision ELSE t.last_applied_revision END, namespaces = x.namespaces,
           next_run_at = CASE
             WHEN t.generation <> x.observed OR t.reconcile_requested_at > x.started_at OR (t.phase = 'Deleting') <> (x.phase = 'Deleting') THEN now()
             WHEN t.advance_to_revision IS NOT NULL AND t.advance_to_revision IS DISTINCT FROM x.revision THEN now()
             ELSE now() + x.after_ms * interval '1 millisecond' END,
           reconcile_requested_at = CASE WHEN t.reconcile_requested_at <= x.started_at THEN NULL ELSE t.reconcile_requested_at END,
           advance_to_revision = NULL,
           lease_owner = NULL, lease_expires_at = NULL
         FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, owner text, epoch int, phase text, conditions jsonb, components jsonb, attempt int, observed int, revision text, applied boolean, namespaces jsonb, after_ms double precision, started_at timestamptz)
         WHERE t.id = x.id AND t.lease_owner = x.owner AND t.lease_epoch = x.epoch RETURNING t.id`,
        [
          json(
            items.map(({ lease, outcome: o }) => {
              const r = o.report;
              return {
                id: lease.targetId, owner: lease.owner, epoch: lease.epoch, phase: r.kind === 'delete' ? 'Deleting' : r.ok ? 'Ready' : 'Failed', conditions: r.conditions,
                // components of a run that failed before planning would hide the last known ones
                components: r.ok || r.components.length > 0 ? r.components : null, attempt: r.decision.attempt, observed: o.observedGeneration,
                revision: r.revision ?? null, applied: r.ok && (r.revision ?? null) !== null, namespaces: r.namespaces, after_ms: r.decision.afterMs, started_at: o.startedAt.toISOString(),
              };
            }),
          ),
        ],
      );
      const held = new Set(returnedRows<{ id: string }>(res).map((r) => r.id));
      await m.query(
        // a run already closed as Abandoned by the replica that took over keeps that verdict
        `UPDATE runs r SET result = x.result, finished_at = now(), duration_ms = GREATEST(0, (extract(epoch from now() - r.started_at) * 1000)::int),
           revision = x.revision, instances = x.instances, error = x.error, errors = x.errors
         FROM jsonb_to_recordset($1::jsonb) AS x(run_id uuid, result text, revision text, instances jsonb, error text, errors jsonb)
         WHERE r.id = x.run_id AND r.result = 'Running'`,
        [
          json(
            items.map(({ lease, outcome: o }) => {
              const r = o.report;
              const kept = held.has(lease.targetId);
              const error = r.errors[0]?.message ?? null;
              return {
                run_id: o.runId, result: kept ? (r.ok ? 'Succeeded' : 'Failed') : 'Abandoned', revision: r.revision ?? null,
                instances: reportedInstances(r),
                error: kept ? error : `lease lost before the result was written${error ? `; the run's error: ${error}` : ''}`, errors: r.errors,
              };
            }),
          ),
        ],
      );
      for (const i of items) if (held.has(i.lease.targetId) && i.whenHeld) await i.whenHeld(m);
      return items.map((i) => held.has(i.lease.targetId));
    });
  }

  /** progress for each: only where the lease is held and the Target still Reconciling; false elsewhere. */
  async progressAll(items: readonly RunProgressNote[]): Promise<boolean[]> {
    const res: unknown = await this.ds.query(
      // locked in id order first, as every batch here locks
      `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, owner text, epoch int, conditions jsonb, components jsonb)),
       l AS (SELECT t.id FROM targets t JOIN x ON t.id = x.id AND t.lease_owner = x.owner AND t.lease_epoch = x.epoch WHERE t.phase = 'Reconciling' ORDER BY t.id FOR UPDATE OF t)
       UPDATE targets t SET conditions = x.conditions, components = x.components FROM l JOIN x ON x.id = l.id
       WHERE t.id = l.id AND t.lease_owner = x.owner AND t.lease_epoch = x.epoch AND t.phase = 'Reconciling' RETURNING t.id`,
      [json(items.map((i) => ({ id: i.lease.targetId, owner: i.lease.owner, epoch: i.lease.epoch, conditions: i.row.conditions, components: i.row.components })))],
    );
    const written = new Set(returnedRows<{ id: string }>(res).map((r) => r.id));
    return items.map((i) => written.has(i.lease.targetId));
  }

  /**
   * renew for each; false where the lease was lost. A row another transaction
   * is writing (this replica's own start or finish batch) is not waited for:
   * it keeps its lease until the next renewal, a third of the TTL later,
   * instead of queueing the whole batch (and every batch behind it) on it.
   */
  async renewAll(leases: readonly Lease[], ttlMs: number): Promise<boolean[]> {
    const rows: Array<{ id: string }> = await this.ds.query(
      `WITH mine AS (
         SELECT t.id, t.lease_owner, t.lease_epoch FROM targets t
         JOIN jsonb_to_recordset($1::jsonb) AS x(id uuid, owner text, epoch int) ON t.id = x.id AND t.lease_owner = x.owner AND t.lease_epoch = x.epoch
       ), free AS (
         SELECT t.id FROM targets t JOIN mine ON t.id = mine.id AND t.lease_owner = mine.lease_owner AND t.lease_epoch = mine.lease_epoch
         ORDER BY t.id FOR UPDATE OF t SKIP LOCKED
       ), renewed AS (
         UPDATE targets t SET lease_expires_at = now() + $2 * interval '1 millisecond' FROM free WHERE t.id = free.id RETURNING t.id
       )
       SELECT id FROM mine`,
      [json(leases.map((l) => ({ id: l.targetId, owner: l.owner, epoch: l.epoch }))), ttlMs],
    );
    const held = new Set(rows.map((r) => r.id));
    return leases.map((l) => held.has(l.targetId));
  }

  /** Locks the rows whose lease is held as given, in id order; their ids. */
  private async lockHeld(m: EntityManager, leases: readonly Lease[]): Promise<Set<string>> {
    const rows: Array<{ id: string }> = await m.query(
      `SELECT t.id FROM targets t JOIN jsonb_to_recordset($1::jsonb) AS x(id uuid, owner text, epoch int) ON t.id = x.id AND t.lease_owner = x.owner AND t.lease_epoch = x.epoch
       ORDER BY t.id FOR UPDATE OF t`,
      [json(leases.map((l) => ({ id: l.targetId, owner: l.owner, epoch: l.epoch })))],
    );
    return new Set(rows.map((r) => r.id));
  }
}
