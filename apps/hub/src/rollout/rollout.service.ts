import { formatRevision } from '@flotilla/engine';
import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/roles';
import { Clock } from '../common/clock';
import { ConflictError, NotFoundError } from '../common/errors';
import type { ProjectEntity } from '../database/entities';
import { RunWakeup } from '../notify/run-wakeup';
import { ProjectsRepository } from '../repositories/projects.repository';
import { TargetsRepository } from '../repositories/targets.repository';
import { UnitOfWork } from '../repositories/unit-of-work';
import { WaveAdvance } from '../runs/wave-advance';
import { decideRollout, type RolloutDecision } from './rollout';
import { rolloutOptions } from './rollout-options';
import { rolledBack, type RolloutAction, type RolloutActionKind } from './rollout-actions';
import { RolloutProjectsRepository } from './rollout-projects.repository';
import { waveMember } from './run-plan';
import { wavesOf } from './wave-spec';
import type { RolloutViewStateDto } from './rollout.views';

/** The rollout of a Project as the API shows it (the same decision the runs act on), and what operators do to it. */
@Injectable()
export class RolloutService {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly targets: TargetsRepository,
    private readonly rollouts: RolloutProjectsRepository,
    private readonly waves: WaveAdvance,
    private readonly wakeup: RunWakeup,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async view(name: string): Promise<RolloutViewStateDto> {
    const project = await this.find(name);
    const revision = revisionOf(project);
    const view: RolloutViewStateDto = { project: project.name, revision, onFailure: project.rolloutOnFailure, waves: [], onHold: false, actions: project.rolloutActions };
    const decision = revision ? await this.decide(project, revision) : undefined;
    if (!revision || !decision) return view;
    const options = rolloutOptions(project, revision, this.clock.now());
    view.onHold = options.onHold ?? false;
    if (options.closed) view.windowClosed = options.closed;
    const back = rolledBack(project.rolloutActions, revision);
    if (back) view.rolledBack = { revision, wave: back.wave ?? 0, by: back.by, at: back.at };
    view.waves = decision.waves.map((w) => ({
      index: w.index,
      groups: w.groups,
      state: w.state,
      ...(w.since ? { since: w.since.toISOString() } : {}),
      ...(w.soakUntil && (w.state === 'soaking' || w.state === 'done') ? { soakUntil: w.soakUntil.toISOString() } : {}),
      counts: { total: w.total, pending: w.pending, progressing: w.progressing, healthy: w.healthy, failed: w.failed },
      failureBudget: w.failureBudget,
      batchSize: w.batchSize,
      ...(w.hold ? { message: w.hold } : {}),
      ...(w.windowClosed ? { windowClosed: w.windowClosed } : {}),
    }));
    return view;
  }

  /** Approves `wave` (default: the one awaiting approval) for the Project's current revision. */
  async approve(name: string, wave: number | undefined, principal: Principal | undefined): Promise<RolloutViewStateDto> {
    const project = await this.find(name);
    const revision = this.requireRevision(project);
    const decision = await this.decide(project, revision);
    const waiting = decision?.waves.find((w) => w.state === 'awaitingApproval');
    const index = wave ?? waiting?.index;
    if (index === undefined) throw new ConflictError(`project "${name}": no wave awaits approval for ${revision}`);
    const spec = wavesOf(project)[index];
    if (!spec || !spec.approval) throw new ConflictError(`project "${name}": wave ${index} does not need approval`);
    return this.act(project, { action: 'approve', revision, wave: index }, principal);
  }

  /** Holds the rollout: no cluster starts the revision (or a later one) until a retry. */
  async hold(name: string, principal: Principal | undefined): Promise<RolloutViewStateDto> {
    const project = await this.find(name);
    return this.act(project, { action: 'hold', revision: this.requireRevision(project) }, principal);
  }

  /** Lifts a hold and runs the Targets that failed on the revision again now. */
  async retry(name: string, principal: Principal | undefined): Promise<RolloutViewStateDto> {
    const project = await this.find(name);
    const revision = this.requireRevision(project);
    const decision = await this.decide(project, revision);
    const failed = [...(decision?.members ?? new Map()).entries()].filter(([, m]) => m.state === 'failed').map(([id]) => id);
    const all = await this.targets.forProject(project.id);
    await this.uow.transaction(async (tx) => {
      for (const t of all.filter((x) => failed.includes(x.id))) await tx.targets.requestRun(project.id, t.clusterId, { manual: true });
    });
    return this.act(project, { action: 'retry', revision }, principal);
  }

  /**
   * Rolls the current revision back from the wave that failed (or, with none
   * failed, the last wave it reached): those clusters return to the last
   * revision each was Ready and Healthy on, until a retry or a new revision.
   */
  async rollback(name: string, principal: Principal | undefined): Promise<RolloutViewStateDto> {
    const project = await this.find(name);
    const revision = this.requireRevision(project);
    if (rolledBack(project.rolloutActions, revision)) throw new ConflictError(`project "${name}": ${revision} is already rolled back; retry it or publish a new revision`);
    const decision = await this.decide(project, revision);
    const reached = (decision?.waves ?? []).filter((w) => w.state === 'failed' || w.state === 'progressing' || w.state === 'soaking' || (w.state === 'done' && w.total > 0));
    const wave = (decision?.waves.find((w) => w.state === 'failed') ?? reached.at(-1))?.index;
    if (wave === undefined) throw new ConflictError(`project "${name}": no wave has taken ${revision} yet, there is nothing to roll back`);
    await this.waves.rollBack(project, revision, wave, byOf(principal));
    return this.view(name);
  }

  private async act(project: ProjectEntity, action: Omit<RolloutAction, 'by' | 'at'>, principal: Principal | undefined): Promise<RolloutViewStateDto> {
    await this.rollouts.appendAction(project.id, { ...action, by: byOf(principal), at: this.clock.now().toISOString() });
    const updated = await this.find(project.name);
    // an approval or a released hold may open a wave now
    await this.waves.advance(updated);
    this.wakeup.wake();
    return this.view(project.name);
  }

  private async decide(project: ProjectEntity, revision: string): Promise<RolloutDecision | undefined> {
    const waves = wavesOf(project);
    if (waves.length === 0) return undefined;
    const members = (await this.targets.forProject(project.id)).filter((t) => !t.removalRequestedAt).map((t) => waveMember(t, t.cluster?.groupName ?? ''));
    return decideRollout(waves, revision, members, this.clock.now(), rolloutOptions(project, revision, this.clock.now()));
  }

  private requireRevision(project: ProjectEntity): string {
    const revision = revisionOf(project);
    if (!revision) throw new ConflictError(`project "${project.name}": its tag is not resolved yet, there is no rollout to act on`);
    if (wavesOf(project).length === 0) throw new ConflictError(`project "${project.name}" has no rollout waves`);
    return revision;
  }

  private async find(name: string): Promise<ProjectEntity> {
    const project = await this.projects.findByName(name);
    if (!project) throw new NotFoundError('project', name);
    return project;
  }
}

/** Who acted: the person signed in, else the token's name. */
function byOf(principal: Principal | undefined): string {
  return principal?.oidc?.email ?? principal?.name ?? 'anonymous';
}

function revisionOf(project: ProjectEntity): string | null {
  return project.sourceDigest ? formatRevision(project.sourceTag, project.sourceDigest) : null;
}

export type { RolloutActionKind };
