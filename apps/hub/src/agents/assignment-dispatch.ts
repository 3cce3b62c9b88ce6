import { createHash } from 'node:crypto';
import type { ProjectRegistryCredentials } from '@flotilla/engine';
import { deletingStatus, formatRevision, reconcilingStatus, rolloutHeldStatus, sourcePendingStatus } from '@flotilla/engine';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { openRegistryCredentials } from '../credentials/registry-credentials';
import type { ProjectEntity, TargetEntity } from '../database/entities';
import { EventsService } from '../events/events.service';
import { HUB_LOGGER } from '../logging/logging.module';
import { RunWakeup } from '../notify/run-wakeup';
import { engineProject } from '../projects/engine-project';
import { type Transaction, UnitOfWork } from '../repositories/unit-of-work';
import { deletesInstances, needsMembers, planRun } from '../rollout/run-plan';
import { noteHeld } from '../runs/rollout-hold-note';
import { runTrigger } from '../runs/trigger';
import { AgentSessions } from './agent-sessions';
import { assignmentChange, type AssignmentFacts } from './assignment';
import { type AssignmentDecision, AssignmentDispatchRepository, type DueAssignment } from './assignment-dispatch.repository';

/** Due Targets taken per transaction: a new digest makes a fleet due at once. */
const BATCH = 1000;

/** An assignment decided in a batch, sent once the batch committed. */
interface Outgoing {
  clusterId: string;
  facts: Omit<AssignmentFacts, 'generation'>;
}

/**
 * Writes and sends agent Targets' desired state. Whatever makes an agent
 * Target due (a new digest, a spec change, suspension, deletion, a manual
 * request, its rollout wave opening) makes this replica, if it holds the
 * agent's stream, decide the assignment with the same rollout gate push
 * runs use, write it as the next generation and send it. It waits for
 * nothing: the agent runs it at once and then at the assignment's interval,
 * and its reports come back through AgentReportIngest.
 */
@Injectable()
export class AssignmentDispatch implements OnApplicationBootstrap, OnApplicationShutdown {
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly ds: DataSource,
    private readonly sessions: AgentSessions,
    private readonly uow: UnitOfWork,
    private readonly events: EventsService,
    private readonly clock: Clock,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
    wakeup: RunWakeup,
  ) {
    wakeup.onWake(() => this.wake());
  }

  onApplicationBootstrap(): void {
    if (this.config.scheduler.enabled) this.loop();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Something became due: dispatch now (once more after a pass under way: it may have read before the change). */
  wake(): void {
    if (this.stopped || !this.config.scheduler.enabled) return;
    if (this.running) this.again = true;
    else void this.dispatch().catch((err: unknown) => this.failed(err));
  }

  /**
   * Every due Target of the agents connected here, until none is left;
   * resolves once their assignments went out. One pass at a time. Safe to call by hand in tests.
   */
  async dispatch(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
    this.running = this.drain(undefined).finally(() => (this.running = undefined));
    await this.running;
    if (this.again && !this.stopped) {
      this.again = false;
      await this.dispatch();
    }
  }

  /**
   * The due Targets of one agent that has just connected, beside any pass
   * under way: their rows are its own (a pass skips rows another has locked),
   * and a connect storm must not queue behind one pass after another.
   */
  async dispatchFor(clusterId: string): Promise<void> {
    await this.drain([clusterId]);
  }

  private loop(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.dispatch()
        .catch((err: unknown) => this.failed(err))
        .finally(() => this.loop());
    }, this.config.scheduler.tickMs);
  }

  private async drain(clusterIds?: readonly string[]): Promise<void> {
    // a pass over every stream asks first whether anything is due: usually not, and then it costs one index probe
    if (!clusterIds && (this.sessions.size === 0 || !(await new AssignmentDispatchRepository(this.ds.manager).anyDue()))) return;
    for (;;) {
      const ids = clusterIds ?? this.sessions.clusterIds();
      if (ids.length === 0) return;
      let committed: (() => void) | undefined;
      // every read and write through the transaction: on the embedded database another connection would wait for it
      const { taken, outgoing } = await this.ds.transaction(async (m) => {
        const joined = this.uow.join(m);
        committed = joined.committed;
        const repo = new AssignmentDispatchRepository(m);
        const due = await repo.lockDue(ids, BATCH);
        const { decisions, outgoing } = await this.decide(due, joined.tx);
        const generations = await repo.write(decisions);
        return { taken: due.length, outgoing: outgoing.flatMap((o) => (generations.has(o.facts.targetId) ? [{ ...o, generation: generations.get(o.facts.targetId)! }] : [])) };
      });
      committed?.();
      for (const o of outgoing) this.sessions.get(o.clusterId)?.send(assignmentChange({ ...o.facts, generation: o.generation }));
      if (taken < BATCH) return;
    }
  }

  private async decide(due: readonly DueAssignment[], tx: Transaction): Promise<{ decisions: AssignmentDecision[]; outgoing: Outgoing[] }> {
    const projects = new Map((await tx.projects.findByIds([...new Set(due.map((t) => t.projectId))])).map((p) => [p.id, p]));
    const tenants = new Map((await tx.tenants.findByNames([...new Set([...projects.values()].map((p) => p.tenant))])).map((t) => [t.name, t]));
    const members = new Map<string, TargetEntity[]>();
    const credentials = new Map<string, ProjectRegistryCredentials | undefined | null>();
    const decisions: AssignmentDecision[] = [];
    const outgoing: Outgoing[] = [];
    const now = this.clock.now();
    for (const t of due) {
      const project = projects.get(t.projectId);
      if (!project) continue; // deleted with its Targets meanwhile
      const hold = (phase: TargetEntity['phase'] | null, conditions: AssignmentDecision['conditions'], retryAt: Date | null = null) => decisions.push({ id: t.id, sent: false, digest: null, fingerprint: null, trigger: null, projectGeneration: project.generation, phase, conditions, retryAt });
      const deleting = deletesInstances(project, t);
      let digest: string | null;
      let phase: TargetEntity['phase'] | null = null;
      let conditions: AssignmentDecision['conditions'] = null;
      if (deleting) {
        digest = t.agentDigest ?? project.sourceDigest;
        phase = 'Deleting';
        conditions = deletingStatus(project.name, t.clusterName, project.deletionRequestedAt !== null, now, t.conditions);
      } else if (project.suspend) {
        // nothing on the agent to suspend until it was assigned something; resuming makes it due
        if (t.agentDigest === null) {
          hold(null, null);
          continue;
        }
        digest = t.agentDigest;
      } else {
        if (needsMembers(project, t) && !members.has(project.id)) members.set(project.id, await tx.targets.forProject(project.id));
        const plan = planRun(project, t.clusterGroup, t, members.get(project.id) ?? [], now);
        if (plan.kind === 'pending') {
          const wait = project.sourceError ? this.config.scheduler.sourcePollMs : this.config.scheduler.tickMs;
          hold(null, sourcePendingStatus({ repository: project.sourceRepository, tag: project.sourceTag, error: project.sourceError }, now, t.conditions), new Date(now.getTime() + wait));
          continue;
        }
        if (plan.kind === 'held') {
          await noteHeld(this.events, project.id, t.clusterName, t.conditions, plan.message, tx);
          hold('Pending', rolloutHeldStatus(plan.message, now, t.conditions));
          continue;
        }
        digest = plan.digest;
        if (plan.hold) await noteHeld(this.events, project.id, t.clusterName, t.conditions, plan.hold, tx);
        phase = 'Reconciling';
        conditions = reconcilingStatus(now, t.conditions, digest ? formatRevision(project.sourceTag, digest) : project.sourceTag);
      }
      const registryCredentials = await this.registryCredentials(credentials, project, tx);
      if (registryCredentials === null) {
        // not opened now: tried again in a while rather than sending an assignment the agent cannot pull with
        hold(null, null, new Date(now.getTime() + this.config.scheduler.sourcePollMs));
        continue;
      }
      const facts = {
        targetId: t.id,
        project: engineProject(project, tenants.get(project.tenant) ?? null),
        cluster: { name: t.clusterName, group: t.clusterGroup },
        digest: digest ?? '',
        intervalSeconds: project.intervalSeconds,
        suspend: project.suspend && !deleting,
        delete: deleting,
      };
      // made due by something that changes nothing the agent holds (a digest it was already sent, say): nothing to send
      const fingerprint = fingerprintOf(facts, project.generation);
      if (fingerprint === t.agentFingerprint && !t.reconcileRequestedAt) {
        hold(null, null);
        continue;
      }
      const revision = digest ? formatRevision(project.sourceTag, digest) : '';
      decisions.push({ id: t.id, sent: true, digest, fingerprint, trigger: runTrigger({ ...t, deleting }, revision), projectGeneration: project.generation, phase, conditions, retryAt: null });
      outgoing.push({ clusterId: t.clusterId, facts: { ...facts, registryCredentials } });
    }
    return { decisions, outgoing };
  }

  /** Each Project's registry credentials, opened once per pass; null: opening failed. */
  private async registryCredentials(opened: Map<string, ProjectRegistryCredentials | undefined | null>, project: ProjectEntity, tx: Transaction): Promise<ProjectRegistryCredentials | undefined | null> {
    const id = project.registryCredentialId;
    if (!id) return undefined;
    if (!opened.has(id)) {
      opened.set(
        id,
        await openRegistryCredentials(tx.credentials, id, project.sourceRepository).catch((err: unknown) => {
          this.logger.warn({ project: project.name, err: err instanceof Error ? err.message : String(err) }, 'registry credentials not opened; the assignment waits');
          return null;
        }),
      );
    }
    return opened.get(id);
  }

  private failed(err: unknown): void {
    this.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'agent assignments not dispatched; the next pass tries again');
  }
}

/**
 * What an assignment says, as one hash: its content and the Project
 * generation it comes from (new credentials are a new generation), never the
 * credentials themselves.
 */
function fingerprintOf(facts: Omit<AssignmentFacts, 'generation' | 'registryCredentials'>, projectGeneration: number): string {
  return createHash('sha256').update(JSON.stringify({ ...facts, projectGeneration })).digest('hex');
}
