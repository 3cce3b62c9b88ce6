import { type Condition, revisionDigest, rolloutHoldingStatus, type RunReport } from '@flotilla/engine';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import type { ClusterEntity, ProjectEntity } from '../database/entities';
import { HUB_LOGGER } from '../logging/logging.module';
import { ClustersRepository } from '../repositories/clusters.repository';
import { ProjectsRepository } from '../repositories/projects.repository';
import { TargetsRepository } from '../repositories/targets.repository';
import { UnitOfWork } from '../repositories/unit-of-work';
import { deletesInstances, needsMembers, planRun } from '../rollout/run-plan';
import { RunResults } from '../runs/run-results';
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

/**
 * The one path an agent's run reports take into the hub, whatever made the
 * agent run (a new assignment, its interval, a retry): the Run row, the
 * Target's status fenced by assignment generation (only a report of the
 * assignment written last sets it), and in the same
 * transaction what a push run records (instance events, service and
 * incident CDEvents, metrics: RunResults). After it, a later rollout wave
 * may open, and a finished deletion removes the Target (TargetDeletion).
 */
@Injectable()
export class AgentReportIngest {
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
  ) {}

  async ingest(identity: AgentIdentity, input: IngestInput): Promise<IngestOutcome> {
    const target = await this.targets.findById(input.targetId);
    if (!target || target.clusterId !== identity.clusterId) return 'dropped';
    const [project, cluster] = await Promise.all([this.projects.findById(target.projectId), this.clusters.findById(identity.clusterId)]);
    if (!project || !cluster) return 'dropped';
    const histories = await this.results.historiesBefore(project, target.id);
    const report = await this.withHold(project, cluster, input.report, target.lastAppliedRevision, target.conditions);
    const revision = report.revision ?? null;
    let current = false;
    let committed: (() => void) | undefined;
    const outcome = await this.ds.transaction(async (m): Promise<IngestOutcome> => {
      const joined = this.uow.join(m);
      committed = joined.committed;
      const runs = new AgentRunsRepository(m);
      const locked = await runs.lockTarget(target.id, identity.clusterId);
      if (!locked) return 'dropped';
      const run: AgentRun = { reportId: input.reportId, generation: input.generation, report, startedAt: this.agentTime(report.startedAt), finishedAt: this.agentTime(report.finishedAt), trigger: triggerOf(locked, input.generation, report), replica: this.config.scheduler.hubId };
      if (!(await runs.insertRun(locked, run))) return 'replayed';
      // only the assignment the hub wrote last is current, and only as what it asked (a deletion or not): an older
      // one's run reported late, or a generation the hub never wrote (nothing an honest agent sends), is history
      current = locked.agentGeneration !== null && input.generation === locked.agentGeneration && (report.kind === 'delete') === deletesInstances(project, target);
      if (current) await runs.writeStatus(locked, run);
      await this.results.record({ project, cluster, target: locked, report, revision, histories }, joined.tx);
      if (current && report.kind === 'delete' && report.ok && locked.agentGeneration !== null) {
        await this.deletion.finish(joined.tx, { kind: 'assignment', targetId: target.id, generation: locked.agentGeneration }, project, cluster);
      }
      return 'stored';
    });
    committed?.();
    if (outcome !== 'stored') return outcome;
    for (const warning of report.warnings) this.logger.warn({ project: project.name, cluster: cluster.name, warning }, 'run warning');
    if (current && report.ok && report.kind === 'reconcile' && revision) {
      await this.waves.afterSuccess(project, cluster.groupName, revision).catch((err: unknown) => this.logger.warn({ project: project.name, err: err instanceof Error ? err.message : String(err) }, 'rollout waves not advanced after an agent report; the next report advances them'));
    }
    return 'stored';
  }

  /** A run that kept the Target on its revision while its wave is closed says so, as a push run does. */
  private async withHold(project: ProjectEntity, cluster: ClusterEntity, report: RunReport, appliedRevision: string | null, previous: readonly Condition[]): Promise<RunReport> {
    if (!report.ok || report.kind !== 'reconcile' || project.rolloutGroups.length === 0 || project.sourceDigest === null) return report;
    if (revisionDigest(report.revision) === project.sourceDigest) return report;
    const target = { id: '', removalRequestedAt: null, lastAppliedRevision: appliedRevision };
    const members = needsMembers(project, target) ? await this.targets.forProject(project.id) : [];
    const plan = planRun(project, cluster.groupName, target, members.filter((t) => t.clusterId !== cluster.id));
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
