import { Injectable } from '@nestjs/common';
import { type Cursor, type CursorPage, type CursorQuery, cursorPage, decodeCursor } from '../common/cursor';
import { ConflictError, NotFoundError } from '../common/errors';
import type { Page } from '../common/paging';
import type { TargetEntity } from '../database/entities';
import { HistoryRepository } from '../repositories/history.repository';
import { TargetsRepository } from '../repositories/targets.repository';
import { markStale } from './stale-target';
import { UnitOfWork } from '../repositories/unit-of-work';
import { RunTriggers } from '../scheduler/run-triggers';
import { formatRevision } from '@flotilla/engine';
import { parseLabelSelector } from '../targeting/label-selector-parser';
import type { EventQuery, TargetQuery } from './projects.dto';
import { ProjectsService } from './projects.service';
import type { EventDto, ReconcileRequestedDto, RunDto, TargetDto } from './projects.views';

/** A Project's Targets: their status, run history and events, and manual reconcile requests. */
@Injectable()
export class TargetsService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly targets: TargetsRepository,
    private readonly history: HistoryRepository,
    private readonly uow: UnitOfWork,
    private readonly triggers: RunTriggers,
  ) {}

  async list(project: string, q: TargetQuery): Promise<Page<TargetDto>> {
    const labelSelector = q.labelSelector !== undefined ? parseLabelSelector(q.labelSelector) : undefined;
    const page = await this.targets.viewPage(project, { phase: q.phase, group: q.group, labelSelector }, q.limit, q.offset);
    if (!page) throw new NotFoundError('project', project);
    return { items: page.rows.map(markStale), total: page.total, limit: q.limit, offset: q.offset };
  }

  async get(project: string, cluster: string): Promise<TargetDto> {
    const row = await this.targets.viewOf(project, cluster);
    return row ? markStale(row) : this.missingTarget(project, cluster);
  }

  async runs(project: string, cluster: string, q: CursorQuery): Promise<CursorPage<RunDto>> {
    const page = await this.history.runsOfTarget(project, cluster, q.limit, cursorOf(q));
    if (!page) return this.missingTarget(project, cluster);
    return cursorPage(page.rows, q.limit, page.next);
  }

  async events(project: string, q: EventQuery): Promise<CursorPage<EventDto>> {
    const page = await this.history.eventsOfProject(project, q.cluster, q.limit, cursorOf(q));
    if (!page) throw new NotFoundError('project', project);
    return cursorPage(page.rows, q.limit, page.next);
  }

  /**
   * Resolves the tag first (a tag moved a moment ago is applied, not the
   * digest the last poll saw), then schedules every Target (or the one on
   * `cluster`) to run now and wakes the scheduler.
   */
  async reconcile(project: string, cluster: string | undefined): Promise<ReconcileRequestedDto> {
    const p = this.projects.refuseWhileDeleting(await this.projects.find(project));
    if (p.suspend) throw new ConflictError(`project "${project}" is suspended; resume it first`);
    let clusterId: string | undefined;
    if (cluster !== undefined) clusterId = (await this.find(project, cluster)).clusterId;
    await this.triggers.resolveTag(p.id);
    const resolved = await this.projects.find(project);
    const requested = await this.uow.transaction(async (tx) => {
      const n = await tx.targets.requestRun(p.id, clusterId, { manual: true });
      await this.projects.note(tx, p, cluster ?? null, 'ReconcileRequested', cluster ? `reconcile requested on ${cluster}` : `reconcile requested on ${n} Target(s)`);
      return n;
    });
    this.triggers.runsDue();
    return {
      requested,
      revision: resolved.sourceDigest ? formatRevision(resolved.sourceTag, resolved.sourceDigest) : null,
      sourceError: resolved.sourceError,
    };
  }

  /** Names the Project when it is the one missing, else the Target. */
  private async missingTarget(project: string, cluster: string): Promise<never> {
    await this.projects.find(project);
    throw new NotFoundError('target', `${project}/${cluster}`);
  }

  private async find(project: string, cluster: string): Promise<TargetEntity> {
    const p = await this.projects.find(project);
    const t = await this.targets.findByClusterName(p.id, cluster);
    if (!t) throw new NotFoundError('target', `${project}/${cluster}`);
    return t;
  }
}

/** The pipe has checked the token's shape (CURSOR), so it decodes. */
function cursorOf(q: CursorQuery): Cursor | undefined {
  return q.continue === undefined ? undefined : decodeCursor(q.continue);
}
