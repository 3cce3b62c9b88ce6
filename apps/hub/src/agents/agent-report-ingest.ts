import type { InstanceHistory } from '@flotilla/cdevents';
import { type Condition, revisionDigest, rolloutHoldingStatus, type RunReport } from '@flotilla/engine';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { Coalescer, ItemFailed } from '../common/coalescer';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import type { ClusterEntity, ProjectEntity, TargetEntity } from '../database/entities';
import { HUB_LOGGER } from '../logging/logging.module';
import { ClustersRepository } from '../repositories/clusters.repository';
import { ProjectsRepository } from '../repositories/projects.repository';
import { TargetsRepository } from '../repositories/targets.repository';
import { UnitOfWork } from '../repositories/unit-of-work';
import { deletesInstances, needsMembers, planRun } from '../rollout/run-plan';
import { type FinishedRun, RunResults } from '../runs/run-results';
import { TargetDeletion } from '../runs/target-deletion';
import { WaveAdvance } from '../runs/wave-advance';
import type { AgentIdentity } from './agent-links.repository';
import { type AgentRun, AgentRunsRepository, type ReportedTarget } from './agent-runs.repository';

/** What became of one report; each means the agent may drop it (a report that could not be written throws, and is not acked). */
export type IngestOutcome = 'stored' | 'replayed' | 'dropped';

/** One report as the stream received it, parsed and bounded. */
export interface IngestInput {
  reportId: string;
  targetId: string;
  generation: number;
  report: RunReport;
}

interface Item {
  identity: AgentIdentity;
  input: IngestInput;
}

/** A report whose Target, Project and cluster were found, ready for the batch's transaction. */
interface Ready {
  index: number;
  target: TargetEntity;
  project: ProjectEntity;
  cluster: ClusterEntity;
  report: RunReport;
  histories: Map<string, InstanceHistory>;
}

/** Reports gather this long into one transaction: a digest brings a fleet's reports within seconds. */
const WINDOW_MS = 10;
const MAX_REPORTS = 500;

/**
 * The one path an agent's run reports take into the hub, whatever made the
 * agent run (a new assignment, its interval, a retry): the Run row, the
 * Target's status fenced by assignment generation (only a report of the
 * assignment written last, as what it asked, sets it), and in the same
 * transaction what a push run records (instance events, service and
 * incident CDEvents, metrics: RunResults). After it, a later rollout wave
 * may open, and a finished deletion removes the Target (TargetDeletion).
 * Reports of all streams are stored in batches, a few statements each.
 */
@Injectable()
export class AgentReportIngest {
  private readonly batches: Coalescer<Item, IngestOutcome>;

  constructor(
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly targets: TargetsRepository,
    private readonly projects: ProjectsRepository,
    private readonly clusters: ClustersRepository,
    private readonly results: RunResults,
    private readonly deletion: TargetDeletion,
    private readonly waves: WaveAdvance,
    private readonly clock: Clock,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {
    this.batches = new Coalescer((items) => this.ingestAll(items), { windowMs: WINDOW_MS, maxItems: MAX_REPORTS });
  }

  ingest(identity: AgentIdentity, input: IngestInput): Promise<IngestOutcome> {
    return this.batches.add({ identity, input });
  }

  private async ingestAll(items: readonly Item[]): Promise<Array<IngestOutcome | ItemFailed>> {
    const outcomes: Array<IngestOutcome | ItemFailed> = items.map(() => 'dropped');
    const ready = await this.read(items);
    if (ready.length === 0) return outcomes;
    const advancing: Array<{ project: ProjectEntity; group: string; revision: string }> = [];
    let committed: (() => void) | undefined;
    await this.ds.transaction(async (m) => {
      const joined = this.uow.join(m);
      committed = joined.committed;
      const runs = new AgentRunsRepository(m);
      const locked = await runs.lockTargets(ready.map((r) => r.target.id));
      const candidates: Array<{ r: Ready; run: AgentRun; state: ReportedTarget }> = [];
      for (const r of ready) {
        const state = locked.get(r.target.id);
        if (!state || state.clusterId !== items[r.index].identity.clusterId) continue;
        const { input } = items[r.index];
        candidates.push({ r, state, run: { targetId: r.target.id, reportId: input.reportId, generation: input.generation, report: r.report, startedAt: this.agentTime(r.report.startedAt), finishedAt: this.agentTime(r.report.finishedAt), trigger: '', replica: this.config.scheduler.hubId, projectGeneration: state.agentProjectGeneration ?? state.generation } });
      }
      // decided in order, on the locked state as each report leaves it: two reports of one Target in a batch stay in sequence
      const statuses = new Map<string, AgentRun>();
      const finished: FinishedRun[] = [];
      const deletions: Array<{ r: Ready; generation: number }> = [];
      for (const c of candidates) {
        const { r, run, state } = c;
        const input = items[r.index].input;
        run.trigger = triggerOf(state, input.generation, r.report);
        // only the assignment the hub wrote last is current, and only as what it asked (a deletion or not): an older
        // one's run reported late, or a generation the hub never wrote (nothing an honest agent sends), is history
        const current = state.agentGeneration !== null && input.generation === state.agentGeneration && (r.report.kind === 'delete') === deletesInstances(r.project, r.target);
        // the agent recorded the instance events in its cluster itself
        finished.push({ project: r.project, cluster: r.cluster, target: { attempt: state.attempt }, report: r.report, revision: r.report.revision ?? null, histories: r.histories, inCluster: true });
        if (current) {
          statuses.set(state.id, run);
          state.attempt = r.report.decision.attempt;
          state.agentReportedGeneration = input.generation;
          if (r.report.kind === 'delete' && r.report.ok) deletions.push({ r, generation: input.generation });
          else if (r.report.ok && r.report.revision) advancing.push({ project: r.project, group: r.cluster.groupName, revision: r.report.revision });
        }
      }
      const stored = await runs.insertRuns(candidates.map((c) => c.run));
      const isNew = (c: { run: AgentRun }) => stored.has(c.run.reportId);
      await runs.writeStatuses([...statuses.values()].filter((run) => stored.has(run.reportId)));
      await this.results.recordAll(finished.filter((_, i) => isNew(candidates[i])), joined.tx);
      for (const d of deletions) if (stored.has(items[d.r.index].input.reportId)) await this.deletion.finish(joined.tx, { kind: 'assignment', targetId: d.r.target.id, generation: d.generation }, d.r.project, d.r.cluster);
      for (const c of candidates) outcomes[c.r.index] = isNew(c) ? 'stored' : 'replayed';
    });
    committed?.();
    for (const r of ready) for (const warning of r.report.warnings) this.logger.warn({ project: r.project.name, cluster: r.cluster.name, warning }, 'run warning');
    await this.advance(advancing);
    return outcomes;
  }

  /** The batch's Targets, Projects and clusters in three reads; what each report needs beyond them, per report. */
  private async read(items: readonly Item[]): Promise<Ready[]> {
    const targets = new Map((await this.targets.findByIds([...new Set(items.map((i) => i.input.targetId))])).map((t) => [t.id, t]));
    const projects = new Map((await this.projects.findByIds([...new Set([...targets.values()].map((t) => t.projectId))])).map((p) => [p.id, p]));
    const clusters = new Map((await this.clusters.findByIds([...new Set(items.map((i) => i.identity.clusterId))])).map((c) => [c.id, c]));
    const ready: Ready[] = [];
    for (const [index, { identity, input }] of items.entries()) {
      const target = targets.get(input.targetId);
      if (!target || target.clusterId !== identity.clusterId) continue;
      const project = projects.get(target.projectId);
      const cluster = clusters.get(identity.clusterId);
      if (!project || !cluster) continue;
      const histories = await this.results.historiesBefore(project, target.id);
      const report = await this.withHold(project, cluster, input.report, target.lastAppliedRevision, target.conditions);
      ready.push({ index, target, project, cluster, report, histories });
    }
    return ready;
  }

  /** After reports Ready on a revision, later waves may open: once per Project and group. */
  private async advance(advancing: ReadonlyArray<{ project: ProjectEntity; group: string; revision: string }>): Promise<void> {
    const seen = new Set<string>();
    for (const a of advancing) {
      const key = `${a.project.id} ${a.group} ${a.revision}`;
      if (a.project.rolloutGroups.length === 0 || seen.has(key)) continue;
      seen.add(key);
      await this.waves.afterSuccess(a.project, a.group, a.revision).catch((err: unknown) => this.logger.warn({ project: a.project.name, err: err instanceof Error ? err.message : String(err) }, 'rollout waves not advanced after an agent report; the next report advances them'));
    }
  }

  /** A run that kept the Target on its revision while its wave is closed says so, as a push run does. */
  private async withHold(project: ProjectEntity, cluster: ClusterEntity, report: RunReport, appliedRevision: string | null, previous: readonly Condition[]): Promise<RunReport> {
    if (!report.ok || report.kind !== 'reconcile' || project.rolloutGroups.length === 0 || project.sourceDigest === null) return report;
    if (revisionDigest(report.revision) === project.sourceDigest) return report;
    const target = { id: '', removalRequestedAt: null, lastAppliedRevision: appliedRevision };
    const members = needsMembers(project, target) ? await this.targets.forProject(project.id) : [];
    const plan = planRun(project, cluster.groupName, target, members.filter((t) => t.clusterId !== cluster.id), this.clock.now());
    if (plan.kind !== 'run' || !plan.hold) return report;
    return { ...report, conditions: rolloutHoldingStatus(report, plan.hold, appliedRevision, this.clock.now(), previous) };
  }

  /** A time the agent reported, if it is one, and never in this hub's future. */
  private agentTime(s: string): Date {
    const now = this.clock.now().getTime();
    const t = Date.parse(s);
    return new Date(Number.isFinite(t) ? Math.min(t, now) : now);
  }
}

/**
 * Why the agent ran: the first report of a new assignment answers it (its
 * trigger was decided when it was written); later ones are the agent's own
 * retries and intervals.
 */
function triggerOf(target: ReportedTarget, generation: number, report: RunReport): string {
  if (report.kind === 'delete') return 'Deletion';
  if (generation > (target.agentReportedGeneration ?? 0)) return target.agentTrigger ?? 'Created';
  return target.attempt > 0 ? 'Retry' : 'Interval';
}
