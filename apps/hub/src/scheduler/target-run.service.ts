import { EgressPolicy } from '@flotilla/egress';
import { buildRunReport, condition, failedRunResult, formatRevision, instanceEventText, reconcilingStatus, UnexpectedRunError, type ProjectSpec, type ReportContext, type ReportInstance, type RunReport } from '@flotilla/engine';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { agentReportIdOf } from '../agents/agent-target-runner';
import { AgentSessions } from '../agents/agent-sessions';
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
import { type Transaction, UnitOfWork } from '../repositories/unit-of-work';
import { CdeventOutboxRepository } from '../repositories/cdevent-outbox.repository';
import { serviceEventOf } from './service-event';
import { instanceHistories } from '@flotilla/cdevents';
import { type ClaimedTarget, type Lease, LeaseRepository } from './lease.repository';
import { BatchedRunWrites } from './batched-run-writes';
import type { LeaseKeeper } from './lease-keeper';
import { ClusterEventSink } from './cluster-event-sink';
import { openKubeConnection, pushConnection } from './push-connection';
import { RunConnection } from './run-connection';
import { RunProgress } from './run-progress';
import { targetsToAdvance } from './rollout';
import { deletesInstances, needsMembers, type PlannedRun, planRun } from './run-plan';
import { SchedulerMetrics } from './scheduler.metrics';
import { openRegistryCredentials } from './sources/registry-credentials';
import { type KubeRequestEvent, TARGET_RUNNER, type TargetRunInput, type TargetRunner } from './target-runner';
import { runTrigger } from './trigger';

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
    private readonly egress: EgressPolicy,
    private readonly cdevents: CdeventOutboxRepository,
    private readonly agents: AgentSessions,
    private readonly batched: BatchedRunWrites,
    private readonly eventSink: ClusterEventSink,
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

  /**
   * `facts`: read with readFacts after the claim, or here when absent (null: the Target was gone then).
   * `sent`: the plan whose assignment went to the agent ahead of the run (AgentSendAhead), decided on
   * rows read a moment before the facts: the run carries out what the agent was told.
   */
  async run(claim: ClaimedTarget, keeper: LeaseKeeper, shutdown: AbortSignal, facts?: RunFacts | null, sent?: PlannedRun): Promise<RunEnd> {
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
    const members = !sent && needsMembers(project, target) ? (facts.members ?? (await this.targets.forProject(project.id))) : [];
    const plan = sent ?? planRun(project, cluster.groupName, target, members);
    if (plan.kind === 'pending') {
      // The poller has not resolved the tag yet (or it failed): show why and look again soon.
      const message = project.sourceError ?? `waiting for ${project.sourceRepository}:${project.sourceTag} to be resolved`;
      const ready = condition('Ready', 'False', project.sourceError ? 'SourceResolveFailed' : 'SourcePending', message, this.clock.now(), target.conditions);
      // a failed resolution is retried by the poller, not by every tick
      const wait = project.sourceError ? this.config.scheduler.sourcePollMs : this.config.scheduler.tickMs;
      await this.leases.release(claim, { nextRunAt: new Date(this.clock.now().getTime() + wait), conditions: [ready] });
      return 'waiting';
    }
    if (plan.kind === 'held') {
      const conditions = [condition('Ready', 'False', 'RolloutWaiting', plan.message, this.clock.now(), target.conditions)];
      await this.noteHeld(project, cluster, target, plan.message);
      await this.leases.release(claim, { nextRunAt: new Date(this.clock.now().getTime() + project.intervalSeconds * 1000), phase: 'Pending', conditions });
      return 'waiting';
    }
    return this.execute(keeper, target, project, cluster, plan, shutdown);
  }

  /** While instances are deleted the Target is no longer Ready on what it applied. */
  private deletingStatus(project: ProjectEntity, cluster: ClusterEntity, target: TargetEntity) {
    const why = project.deletionRequestedAt ? '' : `, which no longer matches the Project's targets`;
    const message = `deleting the instances of project ${project.name} from cluster ${cluster.name}${why}`;
    const now = this.clock.now();
    return [condition('Ready', 'Unknown', 'Progressing', message, now, target.conditions), condition('Reconciling', 'True', 'Progressing', message, now, target.conditions)];
  }

  /** A wave holds this Target back: one event per revision held (the condition says it on every run). */
  private async noteHeld(project: ProjectEntity, cluster: ClusterEntity, target: TargetEntity, message: string): Promise<void> {
    if (target.conditions.some((c) => c.reason === 'RolloutWaiting' && c.message.startsWith(message))) return;
    await this.events.record({ projectId: project.id, clusterName: cluster.name, type: 'Normal', reason: 'RolloutWaiting', message });
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
    const agentRun = cluster.mode === 'agent';
    // an agent that goes away mid-run: the run is abandoned, and runs again once it is back
    const agentGone = agentRun ? this.agents.get(cluster.id)?.closed : undefined;
    if (agentRun && !agentGone) {
      await this.leases.release(lease);
      return 'released';
    }
    // a digest starts a fleet's runs together (thousands for agents): their writes go in batches
    const starting = this.batched.startRun(lease, {
      generation: project.generation,
      revision,
      trigger,
      phase: deleting ? 'Deleting' : 'Reconciling',
      conditions: deleting ? this.deletingStatus(project, cluster, target) : reconcilingStatus(this.clock.now(), target.conditions, revision ?? project.sourceTag),
      // the assignment the agent is sent below (its generation: the lease epoch), for the full set on reconnect
      ...(agentRun ? { agentDigest: digest || null } : {}),
    });
    // an agent's assignment goes out while its Run row waits for its batch, so the agent's ack does not wait
    // on the fleet's writes; a row that could not be started (lease lost) stops the wait for the report
    const notStarted = new AbortController();
    if (agentRun) void starting.then((s) => s || notStarted.abort(new Error('the lease was lost before the run started')), (err: unknown) => notStarted.abort(err));
    else if (!(await starting)) return 'lost';

    const linked = linkedSignal(agentGone ? [shutdown, keeper.signal, agentGone, notStarted.signal] : [shutdown, keeper.signal]);
    const signal = linked.signal;
    try {
      const context = { project: { name: project.name, namespace: project.namespace, source: project.sourceRepository }, cluster: cluster.name, revision: revision ?? '' };
      // the service events are decided from the instances' past runs, read once, and only for a Project with a sink
      const histories = instanceHistories(project.cdeventsSink ? await this.cdevents.pastRuns(target.id) : []);
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
      const hooks = {
        instanceWaiting: deleting
          ? undefined
          : async (component: string, instance: { name: string; namespace: string }, objects: string[], timeoutMs: number) => {
              progress.waiting(component, instance, objects, timeoutMs);
              await note();
            },
        instanceApplied: async (i: ReportInstance) => {
          if (!deleting && i.action === 'applied') {
            progress.applied(i);
            void note();
          }
          this.metrics.observeInstance(context, i);
          const text = instanceEventText(i);
          const cdevent = project.cdeventsSink ? serviceEventOf(histories, i, revision) : undefined;
          await this.events.record({ projectId: project.id, clusterName: cluster.name, ...text, ...(revision ? { revision } : {}), component: i.component, instance: i.name, namespace: i.namespace, ...(cdevent ? { cdevent } : {}) });
        },
      };
      let report: RunReport;
      try {
        const input = await this.input(project, cluster, target, lease.epoch, digest, signal);
        // the run's instance events go out through its own connection, with its Project as read for it
        const endScope = this.eventSink.duringRun({ projectId: project.id, clusterName: cluster.name, project: { name: project.name, namespace: project.namespace }, kube: input.kube ?? null });
        try {
          report = deleting ? await this.runner.deleteInstances(input, hooks) : await this.runner.reconcile({ ...input, digest: digest! }, hooks);
        } finally {
          endScope();
          input.kube?.release();
        }
      } catch (err) {
        // the runner never throws; should it, the run still ends with a report
        const failed = failedRunResult(
          { project: engineProject(project), cluster: { name: cluster.name, group: cluster.groupName } },
          new UnexpectedRunError(`run failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err }),
          this.clock.now(),
        );
        report = buildRunReport(failed, this.schedule(project, target), deleting ? 'delete' : 'reconcile');
      }
      const started = await starting;
      if (!started) return 'lost';
      this.metrics.observeRun(report.ok, report.durationMs / 1000);
      await noted; // the last progress note is in before the result replaces it

      if (signal.aborted) {
        // Shutdown or a lost lease: no result is written; the next holder runs it again.
        const reason = signal.reason instanceof Error ? signal.reason.message : 'the hub is shutting down';
        const held = await this.leases.abandonRun(lease, started.id, `run interrupted before its result was written: ${reason}`);
        if (!held) this.metrics.leasesLost.inc();
        return held ? 'released' : 'lost';
      }

      if (deleting && report.ok) {
        const end = await this.finishDeletion(lease, project, cluster);
        if (end !== 'kept') return end;
        // the removal was called off during the run: the result is stored and the Target reconciles again at once
      }
      if (hold && report.ok) {
        await this.noteHeld(project, cluster, target, hold);
        const message = `${hold}; correcting drift on ${report.revision ?? target.lastAppliedRevision} meanwhile`;
        report = { ...report, conditions: [...report.conditions.filter((c) => c.type !== 'Reconciling'), condition('Reconciling', 'True', 'RolloutWaiting', message, this.clock.now(), target.conditions)] };
      }

      let committed: (() => void) | undefined;
      const outcome = { runId: started.id, startedAt: started.startedAt, report, observedGeneration: project.generation, agentReportId: agentReportIdOf(report) };
      const held = await this.batched.finishRun(lease, outcome, async (m) => {
        const joined = this.uow.join(m);
        committed = joined.committed;
        await this.recordOutcome(project, cluster, target, report, revision, joined.tx);
      });
      committed?.();
      if (!held) {
        this.metrics.leasesLost.inc();
        return 'lost';
      }
      for (const warning of report.warnings) this.logger.warn({ project: project.name, cluster: cluster.name, warning }, 'run warning');
      if (!report.ok) return 'failed';
      if (project.rolloutGroups.length > 0 && revision) await this.advanceWaves(project, cluster, revision);
      return 'succeeded';
    } finally {
      linked.unlink();
    }
  }

  /**
   * A failure's event, in the transaction of the run's result: the first
   * failure after a success is an incident detected; the first success
   * after failures, an incident resolved.
   */
  private async recordOutcome(project: ProjectEntity, cluster: ClusterEntity, target: TargetEntity, report: RunReport, revision: string | null, tx: Transaction): Promise<void> {
    const about = { projectId: project.id, clusterName: cluster.name, ...(revision ? { revision } : {}) };
    if (!report.ok) {
      const first = report.errors[0];
      const detected = target.attempt === 0 ? { cdevent: 'incident.detected' as const } : {};
      await this.events.record({ ...about, type: 'Warning', reason: first?.reason ?? 'ReconciliationFailed', message: first?.message ?? 'reconciliation failed', ...detected }, tx);
    } else if (target.attempt > 0) {
      const message = `reconciled again${revision ? ` on ${revision}` : ''} after ${target.attempt} failed attempt${target.attempt === 1 ? '' : 's'}`;
      await this.events.record({ ...about, type: 'Normal', reason: 'Recovered', message, cdevent: 'incident.resolved' }, tx);
    }
  }

  /**
   * The Target (and its Run rows) go with the fenced delete, in one
   * transaction with the event and, after the last Target, the Project and
   * its credentials.
   */
  private async finishDeletion(lease: Lease, project: ProjectEntity, cluster: ClusterEntity): Promise<RunEnd | 'kept'> {
    const gone = await this.uow.transaction(async (tx): Promise<boolean | 'kept'> => {
      // two Targets finishing at once must not both see the other still there and leave the Project behind
      await tx.projects.lock(project.id);
      const current = await tx.targets.findById(lease.targetId);
      if (current && !deletesInstances(project, current)) return 'kept';
      if (!(await tx.targets.deleteLeased(lease))) return false;
      await this.events.record({ projectId: project.id, clusterName: cluster.name, type: 'Normal', reason: 'InstancesDeleted', message: `instances of project ${project.name} removed from cluster ${cluster.name}` }, tx);
      if (project.deletionRequestedAt && (await tx.targets.forProject(project.id)).length === 0) {
        await this.events.record({ projectId: project.id, clusterName: null, type: 'Normal', reason: 'ProjectDeleted', message: `project ${project.name} deleted after its instances were removed` }, tx);
        await tx.projects.delete(project.id);
        if (project.registryCredentialId) await tx.credentials.delete(project.registryCredentialId);
        tx.afterCommit(() => this.logger.info({ project: project.name }, 'project deleted after its instances were removed'));
      }
      return true;
    });
    return gone === 'kept' ? 'kept' : gone ? 'deleted' : 'lost';
  }

  /** After a success, a later wave may open: move its Targets to the revision. */
  private async advanceWaves(project: ProjectEntity, cluster: ClusterEntity, revision: string): Promise<void> {
    if (project.sourceDigest === null || revision !== formatRevision(project.sourceTag, project.sourceDigest)) return;
    const all = (await this.targets.forProject(project.id)).filter((t) => !t.removalRequestedAt);
    const members = all.map((t) => ({ id: t.id, group: t.cluster?.groupName ?? '', phase: t.phase, lastAppliedRevision: t.lastAppliedRevision }));
    await this.targets.advanceTo(targetsToAdvance(project.rolloutGroups, revision, members, cluster.groupName), revision);
  }

  /** What the engine needs to decide when the Target runs next. */
  private schedule(project: ProjectEntity, target: TargetEntity): ReportContext {
    return { attempt: target.attempt, intervalMs: project.intervalSeconds * 1000, backoff: this.config.scheduler.backoff, previous: target.conditions };
  }

  private async input(project: ProjectEntity, cluster: ClusterEntity, target: TargetEntity, epoch: number, digest: string | null, signal: AbortSignal): Promise<TargetRunInput> {
    const connection = await pushConnection(this.credentials, cluster);
    const onKubeRequest = (e: KubeRequestEvent) => this.metrics.observeKubeRequest(e);
    return {
      project: { ...engineProject(project), generation: project.generation, bootstrapRole: project.bootstrapRole },
      cluster: { name: cluster.name, group: cluster.groupName, serverVersion: cluster.serverVersion, mode: cluster.mode },
      target: { id: target.id, epoch },
      connection,
      registryCredentials: await openRegistryCredentials(this.credentials, project.registryCredentialId, project.sourceRepository),
      // opened last: nothing after it can fail and leave it open
      kube: connection ? new RunConnection(openKubeConnection(connection, this.egress, onKubeRequest)) : undefined,
      digest,
      owner: cluster.id,
      knownNamespaces: target.namespaces,
      schedule: this.schedule(project, target),
      signal,
      onKubeRequest,
    };
  }
}

/** The Project as the engine (and an agent's assignment) sees it. */
export function engineProject(p: ProjectEntity): ProjectSpec & { overwriteOwnership: boolean } {
  return {
    name: p.name,
    namespace: p.namespace,
    source: { repository: p.sourceRepository, tag: p.sourceTag, path: p.sourcePath },
    serviceAccountName: p.serviceAccountName,
    annotations: p.annotations,
    overwriteOwnership: p.overwriteOwnership,
  };
}
