import { TenantsRepository } from '../repositories/tenants.repository';
import { buildRunReport, deletingStatus, failedRunResult, formatRevision, reconcilingStatus, rolloutHeldStatus, rolloutHoldingStatus, sourcePendingStatus, UnexpectedRunError, type ReportContext, type ReportInstance, type RunReport } from '@flotilla/engine';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { ClustersRepository } from '../repositories/clusters.repository';
import { Clock } from '../common/clock';
import { linkedSignal } from '../common/linked-signal';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { CredentialsService } from '../credentials/credentials.service';
import type { ClusterEntity, ProjectEntity, TargetEntity } from '../database/entities';
import { HUB_LOGGER } from '../logging/logging.module';
import { ProjectsRepository } from '../repositories/projects.repository';
import { EventsService } from '../events/events.service';
import { TargetsRepository } from '../repositories/targets.repository';
import { UnitOfWork } from '../repositories/unit-of-work';
import { RunResults } from '../runs/run-results';
import { TargetDeletion } from '../runs/target-deletion';
import { WaveAdvance } from '../runs/wave-advance';
import { noteHeld } from '../runs/rollout-hold-note';
import { type ClaimedTarget, LeaseRepository } from './lease.repository';
import { BatchedRunWrites } from './batched-run-writes';
import type { LeaseKeeper } from './lease-keeper';
import { ClusterEventSink } from './cluster-event-sink';
import { pushConnection } from './push-connection';
import { PushConnections } from './push-connections';
import { RunConnection } from './run-connection';
import { RunProgress } from './run-progress';
import { needsMembers, type PlannedRun, planRun } from '../rollout/run-plan';
import { SchedulerMetrics } from './scheduler.metrics';
import { openRegistryCredentials } from '../credentials/registry-credentials';
import { engineProject, runProject } from '../projects/engine-project';
import { type KubeRequestEvent, TARGET_RUNNER, type TargetRunInput, type TargetRunner } from './target-runner';
import { runTrigger } from '../runs/trigger';

/** How one claimed Target ended, for the scheduler's bookkeeping and tests. */
export type RunEnd = 'succeeded' | 'failed' | 'deleted' | 'waiting' | 'released' | 'lost';

/** A claimed Target with its Project and cluster, read before the run (the scheduler reads many at once). */
export interface RunFacts {
  target: TargetEntity;
  project: ProjectEntity;
  cluster: ClusterEntity;
  /** the Project's Targets with their clusters, for the rollout gate (read once per Project for a whole claim) */
  members?: TargetEntity[];
}

/**
 * Runs one claimed Target: decides the revision (rollout gate) and trigger,
 * opens its credentials, calls the TargetRunner, and stores the engine's
 * report (Run row, status, next run), events and metrics, fenced by the
 * lease epoch. The lease is renewed by its keeper from the moment of the claim.
 */
@Injectable()
export class TargetRunService {
  constructor(
    private readonly leases: LeaseRepository,
    private readonly projects: ProjectsRepository,
    private readonly clusters: ClustersRepository,
    private readonly targets: TargetsRepository,
    private readonly events: EventsService,
    private readonly credentials: CredentialsService,
    private readonly metrics: SchedulerMetrics,
    @Inject(TARGET_RUNNER) private readonly runner: TargetRunner,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    private readonly clock: Clock,
    private readonly uow: UnitOfWork,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
    private readonly connections: PushConnections,
    private readonly batched: BatchedRunWrites,
    private readonly tenants: TenantsRepository,
    private readonly eventSink: ClusterEventSink,
    private readonly results: RunResults,
    private readonly deletion: TargetDeletion,
    private readonly waves: WaveAdvance,
  ) {}

  /** The facts of many claimed Targets in three reads; a Target (or its Project) removed meanwhile is missing. */
  async readFacts(targetIds: readonly string[]): Promise<Map<string, RunFacts>> {
    if (targetIds.length === 0) return new Map();
    const targets = await this.targets.findByIds(targetIds);
    const projects = new Map((await this.projects.findByIds([...new Set(targets.map((t) => t.projectId))])).map((p) => [p.id, p]));
    const clusters = new Map((await this.clusters.findByIds([...new Set(targets.map((t) => t.clusterId))])).map((c) => [c.id, c]));
    // with waves, each run reads all its Project's Targets: once per Project here, not once per Target
    const members = new Map<string, TargetEntity[]>();
    for (const p of projects.values()) if (p.rolloutGroups.length > 0) members.set(p.id, await this.targets.forProject(p.id));
    const out = new Map<string, RunFacts>();
    for (const target of targets) {
      const project = projects.get(target.projectId);
      const cluster = clusters.get(target.clusterId);
      if (project && cluster) out.set(target.id, { target, project, cluster, members: members.get(project.id) });
    }
    return out;
  }

  /** `facts`: read with readFacts after the claim, or here when absent (null: the Target was gone then). */
  async run(claim: ClaimedTarget, keeper: LeaseKeeper, shutdown: AbortSignal, facts?: RunFacts | null): Promise<RunEnd> {
    if (claim.takenOverFrom) {
      this.metrics.leaseTakeovers.inc();
      const abandoned = await this.leases.abandonRuns(claim.targetId, claim.takenOverFrom, claim.owner);
      this.logger.warn({ target: claim.targetId, from: claim.takenOverFrom, abandoned }, 'took over an expired lease');
    }
    if (facts === undefined) {
      const target = await this.targets.findById(claim.targetId);
      const project = target && (await this.projects.findById(target.projectId));
      const cluster = target && (await this.clusters.findById(target.clusterId));
      facts = target && project && cluster ? { target, project, cluster } : null;
    }
    if (!facts) return 'released'; // removed meanwhile
    const { target, project, cluster } = facts;
    const members = needsMembers(project, target) ? (facts.members ?? (await this.targets.forProject(project.id))) : [];
    const plan = planRun(project, cluster.groupName, target, members, this.clock.now());
    if (plan.kind === 'pending') {
      // The poller has not resolved the tag yet (or it failed): show why and look again soon.
      const conditions = sourcePendingStatus({ repository: project.sourceRepository, tag: project.sourceTag, error: project.sourceError }, this.clock.now(), target.conditions);
      // a failed resolution is retried by the poller, not by every tick
      const wait = project.sourceError ? this.config.scheduler.sourcePollMs : this.config.scheduler.tickMs;
      await this.leases.release(claim, { nextRunAt: new Date(this.clock.now().getTime() + wait), conditions });
      return 'waiting';
    }
    if (plan.kind === 'held') {
      const conditions = rolloutHeldStatus(plan.message, this.clock.now(), target.conditions);
      await noteHeld(this.events, project.id, cluster.name, target.conditions, plan.message);
      await this.leases.release(claim, { nextRunAt: new Date(this.clock.now().getTime() + project.intervalSeconds * 1000), phase: 'Pending', conditions });
      return 'waiting';
    }
    return this.execute(keeper, target, project, cluster, plan, shutdown);
  }

  /**
   * `hold`: a rollout wave keeps this Target on the revision it has; a
   * successful run then says so in `Reconciling` (it has not reached the
   * Project's revision yet) rather than only `Ready`.
   */
  private async execute(keeper: LeaseKeeper, target: TargetEntity, project: ProjectEntity, cluster: ClusterEntity, plan: PlannedRun, shutdown: AbortSignal): Promise<RunEnd> {
    const lease = keeper.lease;
    const { deleting, digest, hold } = plan;
    const revision = digest ? formatRevision(project.sourceTag, digest) : null;
    const trigger = runTrigger({ ...target, deleting }, revision ?? '');
    const now = this.clock.now();
    // a digest starts a fleet's runs together: their writes go in batches
    const started = await this.batched.startRun(lease, {
      generation: project.generation,
      revision,
      trigger,
      phase: deleting ? 'Deleting' : 'Reconciling',
      conditions: deleting ? deletingStatus(project.name, cluster.name, project.deletionRequestedAt !== null, now, target.conditions) : reconcilingStatus(now, target.conditions, revision ?? project.sourceTag),
    });
    if (!started) return 'lost';

    const linked = linkedSignal([shutdown, keeper.signal]);
    const signal = linked.signal;
    // the run's connection and event scope last until its result is recorded: the instance events
    // recorded with the result go out through the run's own connection (ClusterEventSink)
    let endScope: (() => void) | undefined;
    let kube: RunConnection | undefined;
    try {
      // read before this run's result is written: the service events compare with the runs before it
      const histories = await this.results.historiesBefore(project, target.id);
      // progress notes go out one after the other, so an older one never lands last;
      // a note asked for while one waits to go is that one: it takes the progress as it is when it goes
      const progress = new RunProgress(revision ?? project.sourceTag);
      let noted = Promise.resolve();
      let queued = false;
      const note = () => {
        if (queued) return noted;
        queued = true;
        noted = noted
          .then(async () => {
            queued = false;
            await this.batched.progress(lease, { conditions: progress.conditions(target.conditions, this.clock.now()), components: progress.snapshot() });
          })
          .catch((err: unknown) => this.logger.warn({ target: target.id, err: err instanceof Error ? err.message : String(err) }, 'progress not written'));
        return noted;
      };
      // events and metrics come from the finished report (RunResults), as an agent's run's do
      const hooks = {
        instanceWaiting: deleting
          ? undefined
          : async (component: string, instance: { name: string; namespace: string }, objects: string[], timeoutMs: number) => {
              progress.waiting(component, instance, objects, timeoutMs);
              await note();
            },
        instanceApplied: (i: ReportInstance) => {
          if (!deleting && i.action === 'applied') {
            progress.applied(i);
            void note();
          }
          return Promise.resolve();
        },
      };
      let report: RunReport;
      try {
        const input = await this.input(project, cluster, target, lease.epoch, digest, signal);
        kube = input.kube;
        endScope = this.eventSink.duringRun({ projectId: project.id, clusterName: cluster.name, project: { name: project.name, namespace: project.namespace }, kube: input.kube ?? null });
        report = deleting ? await this.runner.deleteInstances(input, hooks) : await this.runner.reconcile({ ...input, digest: digest! }, hooks);
      } catch (err) {
        // the runner never throws; should it, the run still ends with a report
        const failed = failedRunResult(
          { project: engineProject(project), cluster: { name: cluster.name, group: cluster.groupName } },
          new UnexpectedRunError(`run failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err }),
          this.clock.now(),
        );
        report = buildRunReport(failed, this.schedule(project, target), deleting ? 'delete' : 'reconcile');
      }
      await noted; // the last progress note is in before the result replaces it

      if (signal.aborted) {
        // Shutdown or a lost lease: no result is written; the next holder runs it again.
        const reason = signal.reason instanceof Error ? signal.reason.message : 'the hub is shutting down';
        const held = await this.leases.abandonRun(lease, started.id, `run interrupted before its result was written: ${reason}`);
        if (!held) this.metrics.leasesLost.inc();
        return held ? 'released' : 'lost';
      }

      if (deleting && report.ok) {
        const end = await this.uow.transaction((tx) => this.deletion.finish(tx, { kind: 'lease', lease }, project, cluster, (t) => this.results.record({ project, cluster, target, report, revision, histories }, t)));
        if (end !== 'kept') return end;
        // the removal was called off during the run: the result is stored and the Target reconciles again at once
      }
      if (hold && report.ok) {
        await noteHeld(this.events, project.id, cluster.name, target.conditions, hold);
        report = { ...report, conditions: rolloutHoldingStatus(report, hold, target.lastAppliedRevision, this.clock.now(), target.conditions) };
      }

      let committed: (() => void) | undefined;
      const outcome = { runId: started.id, startedAt: started.startedAt, report, observedGeneration: project.generation };
      const held = await this.batched.finishRun(lease, outcome, async (m) => {
        const joined = this.uow.join(m);
        committed = joined.committed;
        await this.results.record({ project, cluster, target, report, revision, histories }, joined.tx);
      });
      // the events' deliveries take hold of the run's connection as they start, before it is released below
      committed?.();
      if (!held) {
        this.metrics.leasesLost.inc();
        return 'lost';
      }
      for (const warning of report.warnings) this.logger.warn({ project: project.name, cluster: cluster.name, warning }, 'run warning');
      if (!report.ok) return 'failed';
      if (revision) await this.waves.afterSuccess(project, cluster.groupName, revision);
      return 'succeeded';
    } finally {
      endScope?.();
      kube?.release();
      linked.unlink();
    }
  }

  /** What the engine needs to decide when the Target runs next. */
  private schedule(project: ProjectEntity, target: TargetEntity): ReportContext {
    const { backoff, healthRecheckMs } = this.config.scheduler;
    return { attempt: target.attempt, intervalMs: project.intervalSeconds * 1000, backoff, healthRecheckMs, previous: target.conditions };
  }

  private async input(project: ProjectEntity, cluster: ClusterEntity, target: TargetEntity, epoch: number, digest: string | null, signal: AbortSignal): Promise<TargetRunInput> {
    const connection = await pushConnection(this.credentials, cluster);
    const onKubeRequest = (e: KubeRequestEvent) => this.metrics.observeKubeRequest(e);
    return {
      project: runProject(project, await this.tenants.findByName(project.tenant)),
      cluster: { name: cluster.name, group: cluster.groupName, serverVersion: cluster.serverVersion, mode: cluster.mode },
      target: { id: target.id, epoch },
      connection,
      registryCredentials: await openRegistryCredentials(this.credentials, project.registryCredentialId, project.sourceRepository),
      // taken last: nothing after it can fail and leave it held
      kube: connection ? new RunConnection(this.connections.lease(cluster.id, connection)) : undefined,
      digest,
      owner: cluster.id,
      knownNamespaces: target.namespaces,
      schedule: this.schedule(project, target),
      signal,
      onKubeRequest,
    };
  }
}
