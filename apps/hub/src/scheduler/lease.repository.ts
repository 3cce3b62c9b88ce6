import { returnedRows } from '../repositories/sql';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { reportedInstances, type ReportComponent, type RunReport } from '@flotilla/engine';
import type { Condition, TargetPhase } from '../database/entities';

/** A Target this replica holds: `epoch` fences every write of its run. */
export interface Lease {
  targetId: string;
  owner: string;
  epoch: number;
}

export interface ClaimedTarget extends Lease {
  /** the replica whose expired lease this claim took over, if any */
  takenOverFrom: string | null;
}

/** What a finished run writes, all or nothing, and only while its lease is current. */
export interface RunOutcome {
  runId: string;
  startedAt: Date;
  /** the engine's report: conditions, components, decision, namespaces */
  report: RunReport;
  /** the Project generation the run reconciled */
  observedGeneration: number;
}

/** What a claim's UPDATE returns for each Target it took. */
interface ClaimRow {
  id: string;
  lease_epoch: number;
  prev_owner: string | null;
}

function claimsOf(rows: readonly ClaimRow[], owner: string): ClaimedTarget[] {
  return rows.map((r) => ({ targetId: r.id, owner, epoch: Number(r.lease_epoch), takenOverFrom: r.prev_owner }));
}

/** A run's start on its Target and Run row. */
export interface RunStartRow {
  generation: number;
  revision: string | null;
  trigger: string;
  conditions: Condition[];
  phase: TargetPhase;
  startedAt?: Date;
}

/**
 * Leases on Targets in PostgreSQL. Claims skip rows another replica is
 * claiming (`FOR UPDATE SKIP LOCKED`) and rows whose lease is still valid;
 * every claim bumps the epoch, and every write of a run checks it, so a
 * replica that lost its lease can never overwrite the newer holder's result.
 * Times are the database's, so replicas' clocks need not agree.
 */
@Injectable()
export class LeaseRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * Claims up to `limit` due Targets of push clusters whose Project is not
   * suspended (deletion and a Target's removal run even then). `inFlight`: Targets this replica is
   * still running; never claimed again here, even if their lease ran out.
   * Agent clusters' Targets are never claimed: their agents run them.
   */
  async claim(owner: string, limit: number, ttlMs: number, inFlight: readonly string[] = []): Promise<ClaimedTarget[]> {
    return this.claimWhere(owner, limit, ttlMs, inFlight);
  }

  private async claimWhere(owner: string, limit: number, ttlMs: number, inFlight: readonly string[]): Promise<ClaimedTarget[]> {
    if (limit <= 0) return [];
    const res = await this.ds.query(
      // The candidates are chosen without locks, then locked on targets alone (locking through the
      // joins rechecks the join for each row a concurrent run write updated). The id lists are
      // filters on targets' own columns as uuid arrays, which PostgreSQL (14+) hashes: joined as rows
      // instead, the planner's guess of their size made it rescan them once per Target
      // (nested loops, 10,000 × 10,000 rows and seconds per claim at 10,000 agents).
      `WITH candidates AS MATERIALIZED (
         SELECT t.id
         FROM targets t
         JOIN projects p ON p.id = t.project_id
         JOIN clusters c ON c.id = t.cluster_id
         WHERE t.next_run_at <= now()
           AND (t.lease_expires_at IS NULL OR t.lease_expires_at < now())
           AND (p.suspend = false OR p.deletion_requested_at IS NOT NULL OR t.removal_requested_at IS NOT NULL)
           AND c.mode = 'push'
           AND NOT (t.id = ANY(string_to_array($4, ',')::uuid[]))
         ORDER BY t.next_run_at, t.id
         LIMIT $2
       ), due AS (
         SELECT t.id, t.lease_owner AS prev_owner
         FROM targets t
         WHERE t.id IN (SELECT id FROM candidates)
           AND t.next_run_at <= now()
           AND (t.lease_expires_at IS NULL OR t.lease_expires_at < now())
         FOR UPDATE OF t SKIP LOCKED
       )
       UPDATE targets t
       SET lease_owner = $1, lease_expires_at = now() + $3 * interval '1 millisecond', lease_epoch = t.lease_epoch + 1
       FROM due WHERE t.id = due.id
       RETURNING t.id, t.lease_epoch, due.prev_owner`,
      [owner, limit, ttlMs, inFlight.join(',')],
    );
    return claimsOf(returnedRows<ClaimRow>(res), owner);
  }

  /** Extends a held lease; false when it was lost (taken over after expiry). */
  async renew(lease: Lease, ttlMs: number): Promise<boolean> {
    const res = await this.ds.query(
      `UPDATE targets SET lease_expires_at = now() + $4 * interval '1 millisecond'
       WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3 RETURNING id`,
      [lease.targetId, lease.owner, lease.epoch, ttlMs],
    );
    return returnedRows(res).length === 1;
  }

  /**
   * Gives a lease back without a result (shutdown, or nothing to do); the Target runs again at `nextRunAt`,
   * or, without one, when it was due, and at once when an advance it was claimed with is still pending.
   */
  async release(lease: Lease, patch: { nextRunAt?: Date; phase?: TargetPhase; conditions?: Condition[] } = {}): Promise<boolean> {
    const res = await this.ds.query(
      `UPDATE targets SET lease_owner = NULL, lease_expires_at = NULL,
         next_run_at = COALESCE($4, CASE WHEN advance_to_revision IS NOT NULL THEN LEAST(next_run_at, now()) ELSE next_run_at END),
         phase = COALESCE($5, phase), conditions = COALESCE($6::jsonb, conditions)
       WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3 RETURNING id`,
      [lease.targetId, lease.owner, lease.epoch, patch.nextRunAt ?? null, patch.phase ?? null, patch.conditions ? JSON.stringify(patch.conditions) : null],
    );
    return returnedRows(res).length === 1;
  }

  /** Runs left `Running` by a replica whose lease expired are closed as Abandoned when another takes the Target over. */
  async abandonRuns(targetId: string, previousOwner: string, takenBy: string): Promise<number> {
    const res = await this.ds.query(
      `UPDATE runs SET result = 'Abandoned', finished_at = now(),
         error = 'hub ' || $2 || ' stopped renewing its lease before the run finished; taken over by ' || $3
       WHERE target_id = $1 AND result = 'Running' RETURNING id`,
      [targetId, previousOwner, takenBy],
    );
    return returnedRows(res).length;
  }

  /** Starts a Run row and marks the Target Reconciling, if the lease is still held; null otherwise. */
  async startRun(lease: Lease, row: RunStartRow): Promise<{ id: string; startedAt: Date } | null> {
    return this.ds.transaction(async (m) => {
      if (!(await this.holds(m, lease))) return null;
      // a removal asked for since the Target was read keeps it Deleting, so the run's end makes it due again
      await m.query(`UPDATE targets SET phase = CASE WHEN removal_requested_at IS NOT NULL THEN 'Deleting' ELSE $2 END, conditions = $3::jsonb WHERE id = $1`, [
        lease.targetId,
        row.phase,
        JSON.stringify(row.conditions),
      ]);
      const inserted: Array<{ id: string; started_at: Date }> = await m.query(
        `INSERT INTO runs (target_id, generation, revision, trigger, lease_owner, started_at, result)
         VALUES ($1, $2, $3, $4, $5, COALESCE($6, clock_timestamp()), 'Running') RETURNING id, started_at`,
        [lease.targetId, row.generation, row.revision, row.trigger, lease.owner, row.startedAt ?? null],
      );
      return { id: inserted[0].id, startedAt: new Date(inserted[0].started_at) };
    });
  }

  /**
   * Writes the run's report and releases the lease in one transaction, only
   * while `lease` is current; otherwise closes the Run row as Abandoned and
   * returns false. The Target is next due when the engine decided, by the
   * database clock; a spec change, manual request or deletion made during
   * the run, or a rollout wave that opened on another revision than the one
   * run, makes it due at once. Suspended and Deleting phases set meanwhile
   * are kept; a deletion run whose Target stopped Deleting (its removal was
   * called off) keeps the phase it was given and runs again at once.
   */
  /** `whenHeld` writes what the outcome causes (its events) in the same transaction, only when the lease still held. */
  async finishRun(lease: Lease, o: RunOutcome, whenHeld?: (m: EntityManager) => Promise<void>): Promise<boolean> {
    const r = o.report;
    const phase: TargetPhase = r.kind === 'delete' ? 'Deleting' : r.ok ? 'Ready' : 'Failed';
    const revision = r.revision ?? null;
    // Components of a run that failed before planning would hide the last known ones.
    const components = r.ok || r.components.length > 0 ? JSON.stringify(r.components) : null;
    const instances = reportedInstances(r);
    return this.ds.transaction(async (m) => {
      const res = await m.query(
        `UPDATE targets SET
           phase = CASE WHEN phase IN ('Suspended', 'Deleting') OR $4 = 'Deleting' AND phase <> 'Deleting' THEN phase ELSE $4 END, conditions = $5::jsonb, components = COALESCE($6::jsonb, components), attempt = $7,
           observed_generation = $9, last_applied_revision = CASE WHEN $13 THEN $10 ELSE last_applied_revision END, namespaces = $12::jsonb,
           next_run_at = CASE
             WHEN generation <> $9 OR reconcile_requested_at > $11 OR (phase = 'Deleting') <> ($4 = 'Deleting') THEN now()
             WHEN advance_to_revision IS NOT NULL AND advance_to_revision IS DISTINCT FROM $10 THEN now()
             ELSE now() + $8 * interval '1 millisecond' END,
           reconcile_requested_at = CASE WHEN reconcile_requested_at <= $11 THEN NULL ELSE reconcile_requested_at END,
           advance_to_revision = NULL,
           lease_owner = NULL, lease_expires_at = NULL
         WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3 RETURNING id`,
        [
          lease.targetId, lease.owner, lease.epoch, phase, JSON.stringify(r.conditions), components,
          r.decision.attempt, r.decision.afterMs, o.observedGeneration, revision, o.startedAt, JSON.stringify(r.namespaces), r.ok && revision !== null,
        ],
      );
      const held = returnedRows(res).length === 1;
      const error = r.errors[0]?.message ?? null;
      await m.query(
        // a run already closed as Abandoned by the replica that took over keeps that verdict
        // now(): the transaction's time, the same instant the next run is counted from
        `UPDATE runs SET result = $2, finished_at = now(), duration_ms = GREATEST(0, (extract(epoch from now() - started_at) * 1000)::int),
           revision = $3, instances = $4::jsonb, error = $5, errors = $6::jsonb
         WHERE id = $1 AND result = 'Running'`,
        [
          o.runId, held ? (r.ok ? 'Succeeded' : 'Failed') : 'Abandoned', revision, JSON.stringify(instances),
          held ? error : `lease lost before the result was written${error ? `; the run's error: ${error}` : ''}`, JSON.stringify(r.errors),
        ],
      );
      if (held && whenHeld) await whenHeld(m);
      return held;
    });
  }

  /** What a run in progress shows on its Target (see RunProgress); false when the lease was lost. */
  async progress(lease: Lease, row: { conditions: Condition[]; components: ReportComponent[] }): Promise<boolean> {
    const res = await this.ds.query(
      `UPDATE targets SET conditions = $4::jsonb, components = $5::jsonb
       WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3 AND phase = 'Reconciling' RETURNING id`,
      [lease.targetId, lease.owner, lease.epoch, JSON.stringify(row.conditions), JSON.stringify(row.components)],
    );
    return returnedRows(res).length === 1;
  }

  /** Closes a run that was interrupted (shutdown, lost lease) and gives the lease back, due at once; false if it was already lost. */
  async abandonRun(lease: Lease, runId: string, error: string): Promise<boolean> {
    return this.ds.transaction(async (m) => {
      await m.query(
        `UPDATE runs SET result = 'Abandoned', finished_at = clock_timestamp(), duration_ms = (extract(epoch from clock_timestamp() - started_at) * 1000)::int, error = $2
         WHERE id = $1 AND result = 'Running'`,
        [runId, error],
      );
      const res = await m.query(
        `UPDATE targets SET lease_owner = NULL, lease_expires_at = NULL, next_run_at = now(), phase = CASE WHEN phase = 'Reconciling' THEN 'Pending' ELSE phase END
         WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3 RETURNING id`,
        [lease.targetId, lease.owner, lease.epoch],
      );
      return returnedRows(res).length === 1;
    });
  }

  /** Due Targets nobody holds: the scheduler's queue depth. */
  async queueDepth(): Promise<number> {
    const rows: Array<{ n: string }> = await this.ds.query(
      `SELECT count(*) AS n FROM targets t JOIN projects p ON p.id = t.project_id JOIN clusters c ON c.id = t.cluster_id
       WHERE t.next_run_at <= now() AND (t.lease_expires_at IS NULL OR t.lease_expires_at < now())
         AND (p.suspend = false OR p.deletion_requested_at IS NOT NULL OR t.removal_requested_at IS NOT NULL) AND c.mode = 'push'`,
    );
    return Number(rows[0]?.n ?? 0);
  }

  private async holds(m: EntityManager, lease: Lease): Promise<boolean> {
    const rows: unknown[] = await m.query(`SELECT id FROM targets WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3 FOR UPDATE`, [lease.targetId, lease.owner, lease.epoch]);
    return rows.length === 1;
  }
}
