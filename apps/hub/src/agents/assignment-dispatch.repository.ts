import type { Condition } from '@flotilla/engine';
import type { EntityManager } from 'typeorm';
import type { TargetEntity } from '../database/entities';
import { returnedRows } from '../repositories/sql';

/** An agent Target whose desired state changed (it is due), with what planning its assignment needs. */
export interface DueAssignment {
  id: string;
  projectId: string;
  clusterId: string;
  clusterName: string;
  clusterGroup: string;
  removalRequestedAt: Date | null;
  lastAppliedRevision: string | null;
  /** where a rollback takes it */
  lastHealthyRevision: string | null;
  phase: TargetEntity['phase'];
  conditions: Condition[];
  generation: number;
  observedGeneration: number | null;
  attempt: number;
  reconcileRequestedAt: Date | null;
  agentDigest: string | null;
  agentFingerprint: string | null;
}

/** What the dispatch decided for one due Target; `sent`: a new assignment generation is written. */
export interface AssignmentDecision {
  id: string;
  sent: boolean;
  digest: string | null;
  fingerprint: string | null;
  trigger: string | null;
  projectGeneration: number;
  phase: TargetEntity['phase'] | null;
  conditions: Condition[] | null;
  /** null: nothing more to do until a change makes it due again */
  retryAt: Date | null;
}

/**
 * The agent Targets' desired state in PostgreSQL. A change that concerns an
 * agent Target (a new digest, spec, suspension, deletion, manual request, a
 * wave opening) makes it due, as it makes a push Target due; the replica
 * holding its agent's stream takes it here, writes the next assignment
 * generation, and sends it. No lease: the row lock of one short
 * transaction is all, and a change committed meanwhile makes it due again.
 */
export class AssignmentDispatchRepository {
  constructor(private readonly m: EntityManager) {}

  /**
   * Whether any agent Target at all is due. A pass over every stream asks
   * this first: the usual answer, no, then costs a probe of the due index
   * rather than a query carrying the id of every agent connected here.
   */
  async anyDue(): Promise<boolean> {
    // Not EXISTS: PostgreSQL drops an EXISTS's ORDER BY and LIMIT, and with statistics taken while a
    // digest made most rows due it then scanned every cluster or Target (14-30 ms at 10,000 agents).
    // Ordered by the indexed column, the scan walks the due index and stops at the first agent Target.
    const rows: unknown[] = await this.m.query(
      `SELECT 1 FROM targets t JOIN clusters c ON c.id = t.cluster_id WHERE t.next_run_at <= now() AND c.mode = 'agent' ORDER BY t.next_run_at LIMIT 1`,
    );
    return rows.length > 0;
  }

  /**
   * Up to `limit` due Targets of `clusterIds`, locked (others' locks skipped) until the transaction
   * ends. Locked first by id alone, then read: a lock step keeps PostgreSQL from stopping its sort at
   * `limit`, so locking whole rows sorted every due row of these clusters, whole (on disk, at 5,000).
   * The read is a statement of its own, so under READ COMMITTED it sees the rows as they were locked.
   */
  async lockDue(clusterIds: readonly string[], limit: number): Promise<DueAssignment[]> {
    if (clusterIds.length === 0) return [];
    const locked: Array<{ id: string }> = await this.m.query(
      `SELECT t.id FROM targets t
       WHERE t.next_run_at <= now() AND t.cluster_id = ANY(string_to_array($1, ',')::uuid[])
       ORDER BY t.id LIMIT $2
       FOR UPDATE OF t SKIP LOCKED`,
      [clusterIds.join(','), limit],
    );
    if (locked.length === 0) return [];
    const rows: Array<Record<string, unknown>> = await this.m.query(
      `SELECT t.id, t.project_id, t.cluster_id, c.name AS cluster_name, c.group_name, t.removal_requested_at, t.last_applied_revision, t.last_healthy_revision, t.phase, t.conditions,
         t.generation, t.observed_generation, t.attempt, t.reconcile_requested_at, t.agent_digest, t.agent_fingerprint
       FROM targets t JOIN clusters c ON c.id = t.cluster_id
       WHERE t.id = ANY(string_to_array($1, ',')::uuid[])
       ORDER BY t.id`,
      [locked.map((r) => r.id).join(',')],
    );
    return rows.map((r) => ({
      id: String(r.id),
      projectId: String(r.project_id),
      clusterId: String(r.cluster_id),
      clusterName: String(r.cluster_name),
      clusterGroup: String(r.group_name),
      removalRequestedAt: (r.removal_requested_at as Date | null) ?? null,
      lastAppliedRevision: (r.last_applied_revision as string | null) ?? null,
      lastHealthyRevision: (r.last_healthy_revision as string | null) ?? null,
      phase: r.phase as TargetEntity['phase'],
      conditions: r.conditions as Condition[],
      generation: Number(r.generation),
      observedGeneration: r.observed_generation === null ? null : Number(r.observed_generation),
      attempt: Number(r.attempt),
      reconcileRequestedAt: (r.reconcile_requested_at as Date | null) ?? null,
      agentDigest: (r.agent_digest as string | null) ?? null,
      agentFingerprint: (r.agent_fingerprint as string | null) ?? null,
    }));
  }

  /** Writes the decisions in one statement; returns the new assignment generation of each Target sent. */
  async write(decisions: readonly AssignmentDecision[]): Promise<Map<string, number>> {
    if (decisions.length === 0) return new Map();
    const res = await this.m.query(
      `UPDATE targets t SET
         agent_generation = CASE WHEN x.sent THEN COALESCE(t.agent_generation, 0) + 1 ELSE t.agent_generation END,
         agent_digest = CASE WHEN x.sent THEN x.digest ELSE t.agent_digest END,
         agent_trigger = CASE WHEN x.sent THEN x.trigger ELSE t.agent_trigger END,
         agent_project_generation = CASE WHEN x.sent THEN x.project_generation ELSE t.agent_project_generation END,
         agent_fingerprint = CASE WHEN x.sent THEN x.fingerprint ELSE t.agent_fingerprint END,
         phase = COALESCE(x.phase, t.phase), conditions = COALESCE(x.conditions, t.conditions),
         next_run_at = COALESCE(x.retry_at, 'infinity'::timestamptz),
         reconcile_requested_at = CASE WHEN x.sent THEN NULL ELSE t.reconcile_requested_at END,
         advance_to_revision = CASE WHEN x.sent THEN NULL ELSE t.advance_to_revision END,
         updated_at = CURRENT_TIMESTAMP
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, sent boolean, digest text, fingerprint text, trigger text, project_generation int, phase text, conditions jsonb, retry_at timestamptz)
       WHERE t.id = x.id
       RETURNING t.id, t.agent_generation, x.sent`,
      [
        JSON.stringify(
          decisions.map((d) => ({ id: d.id, sent: d.sent, digest: d.digest, fingerprint: d.fingerprint, trigger: d.trigger, project_generation: d.projectGeneration, phase: d.phase, conditions: d.conditions, retry_at: d.retryAt?.toISOString() ?? null })),
        ),
      ],
    );
    return new Map(returnedRows<{ id: string; agent_generation: number; sent: boolean }>(res).filter((r) => r.sent).map((r) => [r.id, Number(r.agent_generation)]));
  }
}
