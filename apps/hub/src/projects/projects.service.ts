import { Injectable } from '@nestjs/common';
import { ClockRepository } from '../common/clock.repository';
import { formatDuration, parseDuration } from '../common/duration';
import { ConflictError, NotFoundError } from '../common/errors';
import type { Page } from '../common/paging';
import { CredentialsService } from '../credentials/credentials.service';
import type { ProjectEntity, TargetSelector } from '../database/entities';
import { HistoryRepository } from '../targeting/history.repository';
import { MembershipService } from '../targeting/membership.service';
import { TargetsRepository } from '../targeting/targets.repository';
import type { CreateProjectDto, ProjectQuery, RegistryCredentialsDto, TargetsDto, UpdateProjectDto } from './projects.dto';
import type { DeletionDto, ProjectDto } from './projects.views';
import { ProjectsRepository } from './projects.repository';

const DEFAULT_INTERVAL_S = 600;

@Injectable()
export class ProjectsService {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly targets: TargetsRepository,
    private readonly history: HistoryRepository,
    private readonly membership: MembershipService,
    private readonly credentials: CredentialsService,
    private readonly clock: ClockRepository,
  ) {}

  async create(dto: CreateProjectDto): Promise<ProjectDto> {
    if (await this.projects.existsByName(dto.name)) throw new ConflictError(`project "${dto.name}" already exists`);
    const credential = dto.registryCredentials ? await this.storeRegistryCredentials(dto.registryCredentials) : undefined;
    let project: ProjectEntity;
    try {
      project = await this.projects.insert({
        name: dto.name,
        namespace: dto.namespace,
        sourceRepository: dto.source.repository,
        sourceTag: dto.source.tag,
        sourcePath: dto.source.path,
        serviceAccountName: dto.serviceAccountName ?? dto.name,
        targetSelector: selectorFrom(dto.targets),
        rolloutGroups: dto.rollout?.groups ?? [],
        intervalSeconds: dto.interval !== undefined ? parseDuration(dto.interval)! : DEFAULT_INTERVAL_S,
        suspend: dto.suspend,
        annotations: dto.annotations ?? {},
        registryCredentialId: credential ?? null,
        cdeventsSink: dto.cdeventsSink ?? null,
        generation: 1,
        deletionRequestedAt: null,
      });
    } catch (err) {
      if (credential) await this.credentials.delete(credential);
      if ((err as { driverError?: { code?: string } }).driverError?.code === '23505') throw new ConflictError(`project "${dto.name}" already exists`);
      throw err;
    }
    await this.note(project, null, 'Created', `Project created at generation 1`);
    await this.membership.syncProject(project);
    return this.get(dto.name);
  }

  async list(q: ProjectQuery): Promise<Page<ProjectDto>> {
    const [rows, total] = await this.projects.page({ suspended: q.suspended === undefined ? undefined : q.suspended === 'true' }, q.limit, q.offset);
    return { items: await this.toDtos(rows), total, limit: q.limit, offset: q.offset };
  }

  async get(name: string): Promise<ProjectDto> {
    return (await this.toDtos([await this.find(name)]))[0];
  }

  /** Spec changes bump the generation (and every Target's); selector changes re-sync Targets. */
  async update(name: string, dto: UpdateProjectDto): Promise<ProjectDto> {
    const p = this.refuseWhileDeleting(await this.find(name));
    const patch: Partial<ProjectEntity> = {};
    const set = <K extends keyof ProjectEntity>(key: K, value: ProjectEntity[K]) => {
      if (JSON.stringify(p[key]) !== JSON.stringify(value)) patch[key] = value;
    };
    if (dto.namespace !== undefined) set('namespace', dto.namespace);
    if (dto.source !== undefined) {
      set('sourceRepository', dto.source.repository);
      set('sourceTag', dto.source.tag);
      set('sourcePath', dto.source.path);
    }
    if (dto.serviceAccountName !== undefined) set('serviceAccountName', dto.serviceAccountName);
    if (dto.targets !== undefined) set('targetSelector', selectorFrom(dto.targets));
    if (dto.rollout !== undefined) set('rolloutGroups', dto.rollout.groups);
    if (dto.interval !== undefined) set('intervalSeconds', parseDuration(dto.interval)!);
    if (dto.annotations !== undefined) set('annotations', dto.annotations);
    if (dto.cdeventsSink !== undefined) set('cdeventsSink', dto.cdeventsSink);
    let credentialsChanged = false;
    if (dto.registryCredentials !== undefined) {
      const { kind, secret } = registrySecret(dto.registryCredentials);
      if (p.registryCredentialId) await this.credentials.replace(p.registryCredentialId, kind, secret);
      else patch.registryCredentialId = (await this.credentials.store(kind, secret)).id;
      credentialsChanged = true;
    }
    if (Object.keys(patch).length === 0 && !credentialsChanged) return this.get(name);
    const generation = p.generation + 1;
    // A new source or new credentials: the poller resolves the tag again before any Target uses it.
    const sourceMoved = patch.sourceRepository !== undefined || patch.sourceTag !== undefined || credentialsChanged;
    await this.projects.update(p.id, { ...patch, generation, ...(sourceMoved ? { sourceDigest: null, sourceCheckedAt: null, sourceError: null } : {}) });
    await this.targets.setGeneration(p.id, generation);
    await this.note(p, null, 'SpecChanged', `generation ${generation}: ${[...Object.keys(patch), ...(credentialsChanged ? ['registryCredentials'] : [])].join(', ')} changed`);
    if (patch.targetSelector) await this.membership.syncProject({ ...p, ...patch, generation });
    return this.get(name);
  }

  /**
   * `orphan`: the Project and its Targets go now, applied objects stay.
   * `delete`: Targets are marked Deleting; the scheduler prunes their instances, then removes the Project.
   */
  async delete(name: string, instances: 'delete' | 'orphan'): Promise<DeletionDto> {
    const p = await this.find(name);
    if (instances === 'orphan' || (await this.targets.forProject(p.id)).length === 0) {
      await this.projects.delete(p.id);
      if (p.registryCredentialId) await this.credentials.delete(p.registryCredentialId);
      return { state: 'deleted' };
    }
    if (!p.deletionRequestedAt) {
      await this.projects.update(p.id, { deletionRequestedAt: this.clock.now() });
      await this.targets.setPhaseForProject(p.id, 'Deleting');
      await this.targets.requestRun(p.id, undefined, { manual: false });
      await this.note(p, null, 'DeletionRequested', 'Project deletion requested: applied instances will be removed from every cluster');
    }
    return { state: 'deleting' };
  }

  async suspend(name: string, suspend: boolean): Promise<ProjectDto> {
    const p = this.refuseWhileDeleting(await this.find(name));
    if (p.suspend !== suspend) {
      await this.projects.update(p.id, { suspend });
      await this.targets.setPhaseForProject(p.id, suspend ? 'Suspended' : 'Pending');
      if (!suspend) await this.targets.requestRun(p.id, undefined, { manual: false });
      await this.note(p, null, suspend ? 'Suspended' : 'Resumed', suspend ? 'reconciliation suspended' : 'reconciliation resumed');
    }
    return this.get(name);
  }

  async find(name: string): Promise<ProjectEntity> {
    const p = await this.projects.findByName(name);
    if (!p) throw new NotFoundError('project', name);
    return p;
  }

  refuseWhileDeleting(p: ProjectEntity): ProjectEntity {
    if (p.deletionRequestedAt) throw new ConflictError(`project "${p.name}" is being deleted`);
    return p;
  }

  note(p: ProjectEntity, cluster: string | null, reason: string, message: string): Promise<void> {
    return this.history.recordEvent({ projectId: p.id, clusterName: cluster, type: 'Normal', reason, message });
  }

  private async storeRegistryCredentials(dto: RegistryCredentialsDto): Promise<string> {
    const { kind, secret } = registrySecret(dto);
    return (await this.credentials.store(kind, secret)).id;
  }

  /** Response views; phase counts and credential summaries come in one query each. */
  private async toDtos(rows: ProjectEntity[]): Promise<ProjectDto[]> {
    const counts = await this.targets.phaseCounts(rows.map((p) => p.id));
    const summaries = await this.credentials.summaries(rows.map((p) => p.registryCredentialId));
    return rows.map((p) => {
      const phases = counts.get(p.id) ?? {};
      const total = Object.values(phases).reduce((a, b) => a + b, 0);
      return {
        name: p.name,
        namespace: p.namespace,
        source: { repository: p.sourceRepository, tag: p.sourceTag, path: p.sourcePath },
        serviceAccountName: p.serviceAccountName,
        targets: p.targetSelector,
        rollout: { groups: p.rolloutGroups },
        interval: formatDuration(p.intervalSeconds),
        suspend: p.suspend,
        annotations: p.annotations,
        registryCredentials: (p.registryCredentialId && summaries.get(p.registryCredentialId)) || null,
        cdeventsSink: p.cdeventsSink,
        generation: p.generation,
        status: { targets: total, ready: phases.Ready ?? 0, phases, deleting: p.deletionRequestedAt !== null },
        createdAt: p.createdAt.toISOString(),
        updatedAt: p.updatedAt.toISOString(),
      };
    });
  }

}

/** Plain JSON of the selector as stored (DTO instances carry no extra fields after validation). */
function selectorFrom(t: TargetsDto | undefined): TargetSelector {
  if (!t) return {};
  const out: TargetSelector = {};
  if (t.names) out.names = t.names;
  if (t.groups) out.groups = t.groups;
  if (t.labelSelector) {
    out.labelSelector = {};
    if (t.labelSelector.matchLabels) out.labelSelector.matchLabels = t.labelSelector.matchLabels;
    if (t.labelSelector.matchExpressions) {
      out.labelSelector.matchExpressions = t.labelSelector.matchExpressions.map((e) => ({ key: e.key, operator: e.operator, ...(e.values ? { values: e.values } : {}) }));
    }
  }
  return out;
}

function registrySecret(dto: RegistryCredentialsDto): { kind: string; secret: object } {
  return dto.dockerConfigJson !== undefined
    ? { kind: 'dockerConfigJson', secret: { dockerConfigJson: dto.dockerConfigJson } }
    : { kind: 'basic', secret: { username: dto.username, password: dto.password } };
}
