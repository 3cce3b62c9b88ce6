import type { ProjectRegistryCredentials } from '@flotilla/engine';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { assignmentChange } from '../agents/assignment';
import { AgentSessions } from '../agents/agent-sessions';
import { CredentialsService } from '../credentials/credentials.service';
import { HUB_LOGGER } from '../logging/logging.module';
import type { ClaimedTarget } from './lease.repository';
import { needsMembers, type PlannedRun, planRun } from './run-plan';
import { openRegistryCredentials } from './sources/registry-credentials';
import { engineProject } from './target-run.service';
import { AssignmentTargetsRepository } from './assignment-targets.repository';
import type { ProjectEntity } from '../database/entities';
import { ProjectsRepository } from '../repositories/projects.repository';

/**
 * Sends the assignments of a claim's agent runs in one pass, before any of
 * those runs is set up: a digest claims thousands of agent Targets at once,
 * and their runs' reads and bookkeeping (facts, run rows, waits) would
 * otherwise come first for all of them. Each assignment is the one its run
 * decides (the same plan on the same rows, with the claim's epoch as its
 * generation); the run finds it sent (AgentSession.expects) and only waits
 * for the report. Anything this pass skips, the run sends itself.
 */
@Injectable()
export class AgentSendAhead {
  constructor(
    private readonly sessions: AgentSessions,
    private readonly targets: AssignmentTargetsRepository,
    private readonly projects: ProjectsRepository,
    private readonly credentials: CredentialsService,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  /** Sends what it can of `claimed` (Targets of agent clusters), and returns the plans sent, by Target id: their runs carry them out. */
  async send(claimed: readonly ClaimedTarget[]): Promise<Map<string, PlannedRun>> {
    const sent = new Map<string, PlannedRun>();
    // a lease taken over first ends its predecessor's run: that run sends once it is done
    const fresh = claimed.filter((c) => !c.takenOverFrom);
    const epochs = new Map(fresh.map((c) => [c.targetId, c.epoch]));
    // a new digest's advance returns what the assignments need; a tick's claim does not
    const preread = fresh.every((c) => c.assignment) ? fresh.map((c) => c.assignment!) : undefined;
    const targets = preread ?? (await this.targets.read([...epochs.keys()]));
    const projects = new Map((await this.projects.findByIds([...new Set(targets.map((t) => t.projectId))])).map((p) => [p.id, p]));
    const credentials = await this.registryCredentials([...projects.values()]);
    for (const target of targets) {
      const project = projects.get(target.projectId);
      // only agent clusters have sessions; waves need all the Project's Targets: those runs decide and send for themselves
      const session = this.sessions.get(target.cluster.id);
      if (!project || !session || needsMembers(project, target)) continue;
      const plan = planRun(project, target.cluster.groupName, target, []);
      const registryCredentials = project.registryCredentialId ? credentials.get(project.registryCredentialId) : undefined;
      if (plan.kind !== 'run' || registryCredentials === null) continue;
      const generation = epochs.get(target.id)!;
      session.send(
        assignmentChange({
          targetId: target.id,
          generation,
          project: engineProject(project),
          cluster: { name: target.cluster.name, group: target.cluster.groupName },
          digest: plan.digest ?? '',
          intervalSeconds: project.intervalSeconds,
          suspend: false,
          delete: plan.deleting,
          registryCredentials,
        }),
      );
      // after the send, which may throw: its run then sends it itself. No report can come in between (this loop gives way to no I/O)
      session.expectReport(target.id, generation);
      sent.set(target.id, plan);
    }
    return sent;
  }

  /** Each Project's registry credentials, opened once; null: opening failed (its runs report why). */
  private async registryCredentials(projects: readonly ProjectEntity[]): Promise<Map<string, ProjectRegistryCredentials | undefined | null>> {
    const opened = new Map<string, ProjectRegistryCredentials | undefined | null>();
    for (const project of projects) {
      const id = project.registryCredentialId;
      if (!id || opened.has(id)) continue;
      opened.set(
        id,
        await openRegistryCredentials(this.credentials, id, project.sourceRepository).catch((err: unknown) => {
          this.logger.warn({ project: project.name, err: err instanceof Error ? err.message : String(err) }, 'registry credentials not opened; its runs send their assignments themselves');
          return null;
        }),
      );
    }
    return opened;
  }
}
