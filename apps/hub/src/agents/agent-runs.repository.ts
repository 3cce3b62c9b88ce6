import { reportedInstances, type RunReport } from '@flotilla/engine';
import type { EntityManager } from 'typeorm';
import type { TargetEntity } from '../database/entities';
import { returnedRows } from '../repositories/sql';

/** What the hub knows of an agent Target when its report arrives, read under the row's lock. */
export interface ReportedTarget {
  id: string;
  /** the assignment generation the hub last wrote; null: never assigned */
  agentGeneration: number | null;
  agentReportedGeneration: number | null;
  agentTrigger: string | null;
  agentProjectGeneration: number | null;
  attempt: number;
  generation: number;
}

/** One agent report as the hub stores it. */
export interface AgentRun {
  reportId: string;
  /** the assignment generation the agent ran */
  generation: number;
  report: RunReport;
  startedAt: Date;
  finishedAt: Date;
  trigger: string;
  replica: string;
}

/**
 * The agent's reports as status feedback, in the caller's transaction: each
 * is one Run row (a replayed report is stored once), and only a report of
 * the current assignment writes the Target's status, so an old run the
 * agent reports late never hides what the hub asked since.
 */
export class AgentRunsRepository {
  constructor(private readonly m: EntityManager) {}

  /** The Target of `clusterId` the report is about, locked until the transaction ends; null: not that cluster's (or gone). */
  async lockTarget(targetId: string, clusterId: string): Promise<ReportedTarget | null> {
    const rows: Array<Record<string, unknown>> = await this.m.query(
      `SELECT id, agent_generation, agent_reported_generation, agent_trigger, agent_project_generation, attempt, generation
       FROM targets WHERE id = $1 AND cluster_id = $2 FOR UPDATE`,
      [targetId, clusterId],
    );
    const r = rows[0];
    if (!r) return null;
    const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    return {
      id: String(r.id),
      agentGeneration: num(r.agent_generation),
      agentReportedGeneration: num(r.agent_reported_generation),
      agentTrigger: r.agent_trigger === null ? null : String(r.agent_trigger),
      agentProjectGeneration: num(r.agent_project_generation),
      attempt: Number(r.attempt),
      generation: Number(r.generation),
    };
  }

  /** The Run row; false when this report was stored before (a replay). */
  async insertRun(target: ReportedTarget, run: AgentRun): Promise<boolean> {
    const r = run.report;
    const error = r.errors[0]?.message ?? null;
    const res = await this.m.query(
      `INSERT INTO runs (target_id, generation, revision, trigger, lease_owner, started_at, finished_at, duration_ms, result, instances, error, errors, agent_report_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, GREATEST(0, (extract(epoch from $7::timestamptz - $6::timestamptz) * 1000)::int), $8, $9::jsonb, $10, $11::jsonb, $12)
       ON CONFLICT (agent_report_id) DO NOTHING RETURNING id`,
      [
        target.id, target.agentProjectGeneration ?? target.generation, r.revision ?? null, run.trigger, run.replica, run.startedAt, run.finishedAt,
        r.ok ? 'Succeeded' : 'Failed', JSON.stringify(reportedInstances(r)), error, JSON.stringify(r.errors), run.reportId,
      ],
    );
    return returnedRows(res).length === 1;
  }

  /**
   * The report as the Target's status: phase, conditions, what it applied,
   * and when the agent runs it next. Suspended and Deleting phases the hub
   * set are kept, as a push run's result keeps them.
   */
  async writeStatus(target: ReportedTarget, run: AgentRun): Promise<void> {
    const r = run.report;
    const phase: TargetEntity['phase'] = r.kind === 'delete' ? 'Deleting' : r.ok ? 'Ready' : 'Failed';
    const revision = r.revision ?? null;
    await this.m.query(
      `UPDATE targets SET
         phase = CASE WHEN phase IN ('Suspended', 'Deleting') OR $2 = 'Deleting' AND phase <> 'Deleting' THEN phase ELSE $2 END,
         conditions = $3::jsonb, components = COALESCE($4::jsonb, components), attempt = $5,
         observed_generation = COALESCE($6, observed_generation),
         last_applied_revision = CASE WHEN $7 THEN $8 ELSE last_applied_revision END, namespaces = $9::jsonb,
         agent_next_run_at = $10::timestamptz + $11 * interval '1 millisecond', agent_reported_generation = $12
       WHERE id = $1`,
      [
        target.id, phase, JSON.stringify(r.conditions),
        // components of a run that failed before planning would hide the last known ones
        r.ok || r.components.length > 0 ? JSON.stringify(r.components) : null,
        r.decision.attempt, target.agentProjectGeneration, r.ok && revision !== null, revision, JSON.stringify(r.namespaces),
        run.finishedAt, r.decision.afterMs, run.generation,
      ],
    );
  }
}
