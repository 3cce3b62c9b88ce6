import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { ClustersRepository } from '../repositories/clusters.repository';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { CredentialsService } from '../credentials/credentials.service';
import type { ClusterEntity, ProjectEntity, TargetEntity } from '../database/entities';
import { HUB_LOGGER } from '../logging/logging.module';
import { ProjectsRepository } from '../repositories/projects.repository';
import { HistoryRepository } from '../repositories/history.repository';
import { TargetsRepository } from '../repositories/targets.repository';
import { type ClaimedTarget, type Lease, LeaseRepository } from './lease.repository';
import { pushConnection } from './push-connection';
import { openRegistryCredentials } from './registry-credentials';
import { rolloutGate, targetsToAdvance } from './rollout';
import { SchedulerMetrics } from './scheduler.metrics';
import { condition, reconcilingConditions, statusAfterRun } from './target-status';
import { type InstanceOutcome, TARGET_RUNNER, type TargetRunInput, type TargetRunner, type TargetRunResult } from './target-runner';
import { runTrigger } from './trigger';

/** Thrown into a run's signal when its lease was taken over. */
export class LeaseLostError extends Error {
  constructor(targetId: string) {
    super(`lease on Target ${targetId} was lost`);
    this.name = 'LeaseLostError';
  }
}

/** How one claimed Target ended, for the scheduler's bookkeeping and tests. */
export type RunEnd = 'succeeded' | 'failed' | 'deleted' | 'waiting' | 'released' | 'lost';

/**
 * Runs one claimed Target: decides the revision (rollout gate) and trigger,
 * opens its credentials, calls the TargetRunner while renewing the lease, and
 * writes the Run row, status, events and metrics, fenced by the lease epoch.
 */
@Injectable()
export class TargetRunService {
  constructor(
    private readonly leases: LeaseRepository,
    private readonly projects: ProjectsRepository,
    private readonly clusters: ClustersRepository,
    private readonly targets: TargetsRepository,
    private readonly history: HistoryRepository,
    private readonly credentials: CredentialsService,
    private readonly metrics: SchedulerMetrics,
    @Inject(TARGET_RUNNER) private readonly runner: TargetRunner,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  async run(claim: ClaimedTarget, shutdown: AbortSignal): Promise<RunEnd> {
    if (claim.takenOverFrom) {
      this.metrics.leaseTakeovers.inc();
      const abandoned = await this.leases.abandonRuns(claim.targetId, claim.takenOverFrom, claim.owner);
      this.logger.warn({ target: claim.targetId, from: claim.takenOverFrom, abandoned }, 'took over an expired lease');
    }
    const target = await this.targets.findById(claim.targetId);
    const project = target && (await this.projects.findById(target.projectId));
    const cluster = target && (await this.clusters.findById(target.clusterId));
    if (!target || !project || !cluster) return 'released'; // removed meanwhile
    const deleting = project.deletionRequestedAt !== null;

    let digest = project.sourceDigest;
    if (!deleting) {
      if (!digest) {
        // The poller has not resolved the tag yet (or it failed): show why and look again soon.
        const message = project.sourceError ?? `waiting for ${project.sourceRepository}:${project.sourceTag} to be resolved`;
        const ready = condition('Ready', 'False', project.sourceError ? 'SourceResolveFailed' : 'SourcePending', message, new Date(), target.conditions);
        // a failed resolution is retried by the poller, not by every tick
        const wait = project.sourceError ? this.config.scheduler.sourcePollMs : this.config.scheduler.tickMs;
        await this.leases.release(claim, { nextRunAt: new Date(Date.now() + wait), conditions: [ready] });
        return 'waiting';
      }
      const revision = `${project.sourceTag}@${digest}`;
      if (project.rolloutGroups.length > 0) {
        const siblings = (await this.targets.forProject(project.id)).filter((t) => t.id !== target.id);
        const members = siblings.map((t) => ({ group: t.cluster?.groupName ?? '', phase: t.phase, lastAppliedRevision: t.lastAppliedRevision }));
        const gate = rolloutGate(project.rolloutGroups, cluster.groupName, revision, members);
        if (!gate.open) {
          const pinned = target.lastAppliedRevision?.split('@')[1];
          if (!pinned) {
            const message = `waiting for group ${gate.waitingFor} to be Ready on ${revision}`;
            const conditions = [condition('Ready', 'False', 'RolloutWaiting', message, new Date(), target.conditions)];
            await this.leases.release(claim, { nextRunAt: new Date(Date.now() + project.intervalSeconds * 1000), phase: 'Pending', conditions });
            return 'waiting';
          }
          digest = pinned; // keep the revision it has, correcting drift, until its wave opens
        }
      }
    }
    return this.execute(claim, target, project, cluster, digest, shutdown);
  }

  private async execute(lease: Lease, target: TargetEntity, project: ProjectEntity, cluster: ClusterEntity, digest: string | null, shutdown: AbortSignal): Promise<RunEnd> {
    const deleting = project.deletionRequestedAt !== null;
    const revision = digest ? `${project.sourceTag}@${digest}` : null;
    const trigger = runTrigger({ ...target, deleting }, revision ?? '');
    const started = await this.leases.startRun(lease, {
      generation: project.generation,
      revision,
      trigger,
      phase: deleting ? 'Deleting' : 'Reconciling',
      conditions: reconcilingConditions(new Date(), target.conditions, revision ?? project.sourceTag),
    });
    if (!started) return 'lost';

    const controller = new AbortController();
    const onShutdown = () => controller.abort(shutdown.reason);
    shutdown.addEventListener('abort', onShutdown);
    const ttl = this.config.scheduler.leaseTtlMs;
    const renewal = setInterval(() => {
      this.leases.renew(lease, ttl).then(
        (held) => {
          if (!held) controller.abort(new LeaseLostError(lease.targetId));
        },
        (err: unknown) => this.logger.warn({ target: lease.targetId, err: String(err) }, 'lease renewal failed'),
      );
    }, Math.max(100, Math.floor(ttl / 3)));

    const context = { project: { name: project.name, namespace: project.namespace, source: project.sourceRepository }, cluster: cluster.name, revision: revision ?? '' };
    const hooks = {
      instanceApplied: async (i: InstanceOutcome) => {
        this.metrics.observeInstance(context, i);
        await this.history.recordEvent({ projectId: project.id, clusterName: cluster.name, type: i.error ? 'Warning' : 'Normal', reason: instanceReason(i), message: instanceMessage(i) });
      },
    };
    let result: TargetRunResult;
    try {
      const input = await this.input(project, cluster, target, digest, controller.signal);
      result = deleting ? await this.runner.deleteInstances(input, hooks) : await this.runner.reconcile({ ...input, digest: digest! }, hooks);
    } catch (err) {
      result = {
        ok: false,
        revision: revision ?? project.sourceTag,
        instances: [],
        components: [],
        namespaces: [],
        error: { reason: err instanceof LeaseLostError ? 'LeaseLost' : 'RunFailed', message: err instanceof Error ? err.message : String(err), retryable: true },
      };
    } finally {
      clearInterval(renewal);
      shutdown.removeEventListener('abort', onShutdown);
    }
    const finishedAt = new Date();
    this.metrics.observeRun(result.ok, (finishedAt.getTime() - started.startedAt.getTime()) / 1000);

    if (controller.signal.aborted) {
      // Shutdown or a lost lease: no result is written; the next holder runs it again.
      const reason = controller.signal.reason instanceof Error ? controller.signal.reason.message : 'the hub is shutting down';
      const held = await this.leases.abandonRun(lease, started.id, `run interrupted before its result was written: ${reason}`);
      if (!held) this.metrics.leasesLost.inc();
      return held ? 'released' : 'lost';
    }

    if (deleting && result.ok) {
      // The Target (and its Run rows) go with the fenced delete; the event stays with the Project until it goes too.
      if (!(await this.leases.deleteTarget(lease))) return 'lost';
      await this.history.recordEvent({ projectId: project.id, clusterName: cluster.name, type: 'Normal', reason: 'InstancesDeleted', message: `instances of project ${project.name} removed from cluster ${cluster.name}` });
      if ((await this.targets.forProject(project.id)).length === 0) {
        await this.projects.delete(project.id);
        if (project.registryCredentialId) await this.credentials.delete(project.registryCredentialId);
        this.logger.info({ project: project.name }, 'project deleted after its instances were removed');
      }
      return 'deleted';
    }

    const held = await this.leases.finishRun(lease, this.outcome(started, finishedAt, result, target, project));
    if (!held) {
      this.metrics.leasesLost.inc();
      return 'lost';
    }
    if (!result.ok) {
      await this.history.recordEvent({ projectId: project.id, clusterName: cluster.name, type: 'Warning', reason: result.error?.reason ?? 'ReconciliationFailed', message: result.error?.message ?? 'reconciliation failed' });
      return 'failed';
    }
    if (project.rolloutGroups.length > 0 && revision) await this.advanceWaves(project, revision);
    return 'succeeded';
  }

  /** After a success, the next wave may open: make its Targets due. */
  private async advanceWaves(project: ProjectEntity, revision: string): Promise<void> {
    if (project.sourceDigest === null || revision !== `${project.sourceTag}@${project.sourceDigest}`) return;
    const all = await this.targets.forProject(project.id);
    const members = all.map((t) => ({ id: t.id, group: t.cluster?.groupName ?? '', phase: t.phase, lastAppliedRevision: t.lastAppliedRevision }));
    await this.targets.triggerNow(targetsToAdvance(project.rolloutGroups, revision, members));
  }

  private outcome(started: { id: string; startedAt: Date }, finishedAt: Date, result: TargetRunResult, target: TargetEntity, project: ProjectEntity) {
    const status = statusAfterRun(result, {
      now: finishedAt,
      previous: target.conditions,
      attempt: target.attempt,
      intervalMs: project.intervalSeconds * 1000,
      backoff: this.config.scheduler.backoff,
    });
    return {
      runId: started.id,
      startedAt: started.startedAt,
      finishedAt,
      result: result.ok ? ('Succeeded' as const) : ('Failed' as const),
      revision: result.revision,
      instances: result.instances,
      error: result.error?.message ?? null,
      target: {
        phase: project.deletionRequestedAt ? 'Deleting' : status.phase,
        conditions: status.conditions,
        components: result.ok || result.components.length > 0 ? result.components : undefined,
        attempt: status.attempt,
        nextRunAt: status.nextRunAt,
        observedGeneration: project.generation,
        lastAppliedRevision: status.lastAppliedRevision,
      },
    };
  }

  private async input(project: ProjectEntity, cluster: ClusterEntity, target: TargetEntity, digest: string | null, signal: AbortSignal): Promise<Omit<TargetRunInput, 'digest'> & { digest: string | null }> {
    return {
      project: {
        name: project.name,
        namespace: project.namespace,
        source: { repository: project.sourceRepository, tag: project.sourceTag, path: project.sourcePath },
        serviceAccountName: project.serviceAccountName,
        annotations: project.annotations,
        generation: project.generation,
      },
      cluster: { name: cluster.name, group: cluster.groupName, serverVersion: cluster.serverVersion },
      connection: await pushConnection(this.credentials, cluster),
      registryCredentials: await openRegistryCredentials(this.credentials, project.registryCredentialId),
      digest,
      knownNamespaces: knownNamespaces(target),
      signal,
      onKubeRequest: (e) => this.metrics.observeKubeRequest(e),
    };
  }
}

/** Namespaces recorded in the Target's components (`[{instances: [{namespace}]}]`). */
function knownNamespaces(target: TargetEntity): string[] {
  const out = new Set<string>();
  for (const c of target.components as Array<{ instances?: Array<{ namespace?: unknown }> }>) {
    for (const i of c.instances ?? []) if (typeof i.namespace === 'string') out.add(i.namespace);
  }
  return [...out];
}

function instanceReason(i: InstanceOutcome): string {
  const verb = i.action === 'applied' ? 'Applied' : i.action === 'pruned' ? 'Pruned' : 'Deleted';
  return i.error ? `Instance${verb === 'Applied' ? 'Apply' : verb === 'Pruned' ? 'Prune' : 'Delete'}Failed` : `Instance${verb}`;
}

function instanceMessage(i: InstanceOutcome): string {
  const module = i.module ? ` module ${i.module.name}@${i.module.version}` : '';
  const counts = `created ${i.created}, configured ${i.configured}, unchanged ${i.unchanged}, deleted ${i.deleted}`;
  const objects = i.objects?.length ? `; objects: ${i.objects.join(', ')}` : '';
  const error = i.error ? `; error: ${i.error}` : '';
  return `instance ${i.namespace}/${i.name} (component ${i.component})${module} ${i.action} in ${i.durationMs} ms: ${counts}${objects}${error}`;
}
