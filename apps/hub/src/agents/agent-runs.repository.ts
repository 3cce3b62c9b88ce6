import { reportedInstances, type RunReport } from '@flotilla/engine';
import type { EntityManager } from 'typeorm';
import type { TargetEntity } from '../database/entities';
import { returnedRows } from '../repositories/sql';

/** What the hub knows of an agent Target when its report arrives, read under the row's lock. */
export interface ReportedTarget {
  id: string;
  clusterId: string;
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
  targetId: string;
  reportId: string;
  /** the assignment generation the agent ran */
  generation: number;
  report: RunReport;
  startedAt: Date;
  finishedAt: Date;
  trigger: string;
  replica: string;
  /** the Project generation it counts as (the assignment's) */
  projectGeneration: number;
}

/**
 * The agents' reports as status feedback, many at once, in the caller's
 * transaction: each is one Run row (a replayed report is stored once), and
 * only a report of the current assignment writes its Target's status, so
 * an old run the agent reports late never hides what the hub asked since.
 */
export class AgentRunsRepository {
  constructor(private readonly m: EntityManager) {}

  /** The Targets, locked in id order until the transaction ends (a Target gone meanwhile is missing). */
  async lockTargets(ids: readonly string[]): Promise<Map<string, ReportedTarget>> {
    const rows: Array<Record<string, unknown>> = await this.m.query(
      `SELECT id, cluster_id, agent_generation, agent_reported_generation, agent_trigger, agent_project_generation, attempt, generation
       FROM targets WHERE id = ANY(string_to_array($1, ',')::uuid[]) ORDER BY id FOR UPDATE`,
      [[...new Set(ids)].join(',')],
    );
    const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    return new Map(
      rows.map((r) => [
        String(r.id),
        {
          id: String(r.id),
          clusterId: String(r.cluster_id),
          agentGeneration: num(r.agent_generation),
          agentReportedGeneration: num(r.agent_reported_generation),
          agentTrigger: r.agent_trigger === null ? null : String(r.agent_trigger),
          agentProjectGeneration: num(r.agent_project_generation),
          attempt: Number(r.attempt),
          generation: Number(r.generation),
        },
      ]),
    );
  }

  /** The Run rows in one statement; returns the report ids stored now (the others were stored before: replays). */
  async insertRuns(runs: readonly AgentRun[]): Promise<Set<string>> {
    if (runs.length === 0) return new Set();
    const res = await this.m.query(
      `INSERT INTO runs (target_id, generation, revision, trigger, lease_owner, started_at, finished_at, duration_ms, result, instances, error, errors, agent_report_id)
       SELECT x.target_id, x.generation, x.revision, x.trigger, x.replica, x.started_at, x.finished_at,
         GREATEST(0, (extract(epoch from x.finished_at - x.started_at) * 1000)::int), x.result, x.instances, x.error, x.errors, x.report_id
       FROM jsonb_to_recordset($1::jsonb) AS x(target_id uuid, generation int, revision text, trigger text, replica text, started_at timestamptz, finished_at timestamptz,
         result text, instances jsonb, error text, errors jsonb, report_id text)
       ON CONFLICT (agent_report_id) DO NOTHING RETURNING agent_report_id`,
      [
        JSON.stringify(
          runs.map((run) => ({
            target_id: run.targetId, generation: run.projectGeneration, revision: run.report.revision ?? null, trigger: run.trigger, replica: run.replica,
            started_at: run.startedAt.toISOString(), finished_at: run.finishedAt.toISOString(), result: run.report.ok ? 'Succeeded' : 'Failed',
            instances: reportedInstances(run.report), error: run.report.errors[0]?.message ?? null, errors: run.report.errors, report_id: run.reportId,
          })),
        ),
      ],
    );
    return new Set(returnedRows<{ agent_report_id: string }>(res).map((r) => r.agent_report_id));
  }

  /**
   * Each report as its Target's status (one report per Target): phase,
   * conditions, what it applied, and when the agent runs it next. Suspended
   * and Deleting phases the hub set are kept, as a push run's result keeps them.
   */
  async writeStatuses(runs: readonly AgentRun[]): Promise<void> {
    if (runs.length === 0) return;
    await this.m.query(
      `UPDATE targets t SET
         phase = CASE WHEN t.phase IN ('Suspended', 'Deleting') OR x.phase = 'Deleting' AND t.phase <> 'Deleting' THEN t.phase ELSE x.phase END,
         conditions = x.conditions, components = COALESCE(x.components, t.components), attempt = x.attempt,
         observed_generation = COALESCE(x.observed, t.observed_generation),
         last_applied_revision = CASE WHEN x.applied THEN x.revision ELSE t.last_applied_revision END, namespaces = x.namespaces,
         agent_next_run_at = x.finished_at + x.after_ms * interval '1 millisecond', agent_reported_generation = x.generation
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, phase text, conditions jsonb, components jsonb, attempt int, observed int, applied boolean, revision text,
         namespaces jsonb, finished_at timestamptz, after_ms double precision, generation int)
       WHERE t.id = x.id`,
      [
        JSON.stringify(
          runs.map(({ targetId, report: r, finishedAt, generation, projectGeneration }) => ({
            id: targetId,
            phase: (r.kind === 'delete' ? 'Deleting' : r.ok ? 'Ready' : 'Failed') satisfies TargetEntity['phase'],
            conditions: r.conditions,
            // components of a run that failed before planning would hide the last known ones
            components: r.ok || r.components.length > 0 ? r.components : null,
            attempt: r.decision.attempt,
            observed: projectGeneration,
            applied: r.ok && (r.revision ?? null) !== null,
            revision: r.revision ?? null,
            namespaces: r.namespaces,
            finished_at: finishedAt.toISOString(),
            after_ms: r.decision.afterMs,
            generation,
          })),
        ),
      ],
    );
  }
}
