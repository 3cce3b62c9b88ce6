import { EgressPolicy } from '@flotilla/egress';
import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { formatDuration, parseDuration } from '../common/duration';
import type { Principal } from '../auth/roles';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '../common/errors';
import { projectRefusals, type ProjectUse } from '../tenancy/tenant-rules';
import { DEFAULT_TENANT } from '../tenancy/default-tenant';
import { requireTenant, tenantsAllowed } from '../tenancy/tenant-scope';
import { registryHostBinding, registryHostOf } from '../credentials/credential-binding';
import { repositoryProblems, sinkProblems, webhookProblems } from '../egress/address-checks';
import type { Page } from '../common/paging';
import type { ProjectEntity, TargetSelector, TenantEntity } from '../database/entities';
import { EventsService } from '../events/events.service';
import { ProjectsRepository, type ProjectViewRow } from '../repositories/projects.repository';
import { type Transaction, UnitOfWork } from '../repositories/unit-of-work';
import { MembershipService } from '../targeting/membership.service';
import { RunTriggers } from '../scheduler/run-triggers';
import { CryptoRepository } from '../crypto/crypto.repository';
import { sealSinkHeader } from '../cdevents/sink-header';
import { sealWebhook } from '../notifications/webhook-url';
import type { CreateProjectDto, ProjectQuery, RegistryCredentialsDto, TargetsDto } from './projects.dto';
import type { UpdateProjectDto } from './project-patch.dto';
import { DEFAULT_INTERVAL_S, patchedSpec, type ProjectSpec } from './project-patch';
import type { DeletionDto, ProjectConditionDto, ProjectDto } from './projects.views';
import { projectHold } from '../rollout/rollout';
import { storedRollout, rolloutView } from '../rollout/rollout-spec.dto';
import { wavesOf } from '../rollout/wave-spec';
import { rolledBack } from '../rollout/rollout-actions';
import { formatRevision } from '@flotilla/engine';
import type { HubEventReason } from '../events/hub-event';

/** Projects: every change that writes more than one row runs in one transaction. */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly projects: ProjectsRepository,
    private readonly events: EventsService,
    private readonly membership: MembershipService,
    private readonly clock: Clock,
    private readonly triggers: RunTriggers,
    private readonly crypto: CryptoRepository,
    private readonly egress: EgressPolicy,
  ) {}

  /** ForbiddenError when the hub's policy refuses the registry or sink (egress policy, a header in clear). */
  private checkAddresses(repository: string, sink: string | null, sinkHeader: boolean, webhook?: string | null): void {
    const problems = [...repositoryProblems(repository, this.egress), ...(sink ? sinkProblems(sink, sinkHeader, this.egress) : []), ...(webhook ? webhookProblems(webhook, this.egress) : [])];
    if (problems.length) throw new ForbiddenError(problems.join('; '));
  }

  /**
   * The credential, the Project, its Targets and their events commit
   * together; a taken name is AlreadyExistsError. The tenant's rules are
   * checked under its row's lock, so a narrowing of them is not outrun.
   */
  async create(dto: CreateProjectDto, caller?: Principal): Promise<ProjectDto> {
    this.checkAddresses(dto.source.repository, dto.cdeventsSink ?? null, !!dto.cdeventsSinkHeader, dto.notificationWebhook);
    const tenantName = tenantForCreation(dto.tenant, caller);
    const id = await this.uow.transaction(async (tx) => {
      const tenant = await tx.tenants.lock(tenantName);
      if (!tenant) throw new NotFoundError('tenant', tenantName);
      refuseOutsideTenant(tenant, { namespace: dto.namespace, serviceAccountName: dto.serviceAccountName ?? dto.name, sourceRepository: dto.source.repository, bootstrapRole: dto.bootstrap?.serviceAccountRole ?? null });
      const credential = dto.registryCredentials ? await storeRegistryCredentials(tx, dto.registryCredentials, dto.source.repository) : undefined;
      // the id is chosen here: the sink header is sealed for this Project
      const projectId = this.crypto.newId();
      const project = await tx.projects.insert({
        id: projectId,
        name: dto.name,
        namespace: dto.namespace,
        tenant: tenantName,
        sourceRepository: dto.source.repository,
        sourceTag: dto.source.tag,
        sourcePath: dto.source.path,
        serviceAccountName: dto.serviceAccountName ?? dto.name,
        targetSelector: selectorFrom(dto.targets),
        ...storedRollout(dto.rollout),
        intervalSeconds: dto.interval !== undefined ? parseDuration(dto.interval)! : DEFAULT_INTERVAL_S,
        suspend: dto.suspend,
        annotations: dto.annotations ?? {},
        registryCredentialId: credential ?? null,
        cdeventsSink: dto.cdeventsSink ?? null,
        cdeventsSinkHeader: dto.cdeventsSinkHeader ? sealSinkHeader(this.crypto, dto.cdeventsSinkHeader, { projectId, sinkUrl: dto.cdeventsSink ?? '' }) : null,
        notificationWebhook: dto.notificationWebhook ? sealWebhook(this.crypto, dto.notificationWebhook, projectId) : null,
        targetRemoval: dto.targetRemoval ?? 'delete',
        overwriteOwnership: dto.overwriteOwnership ?? false,
        bootstrapRole: dto.bootstrap?.serviceAccountRole ?? null,
        generation: 1,
        deletionRequestedAt: null,
      });
      await this.note(tx, project, null, 'Created', `Project created at generation 1`);
      await this.membership.syncProject(tx, project);
      return project.id;
    });
    // creation is a trigger: the first run waits for neither the poll nor the tick
    this.triggers.sourceChanged(id);
    return this.get(dto.name);
  }

  /** A member sees its tenants' Projects only, and totals count only those. */
  async list(q: ProjectQuery, caller?: Principal): Promise<Page<ProjectDto>> {
    const allowed = tenantsAllowed(caller, 'viewer');
    const tenants = q.tenant === undefined ? allowed : allowed === undefined || allowed.includes(q.tenant) ? [q.tenant] : [];
    const { rows, total } = await this.projects.viewPage({ suspended: q.suspended === undefined ? undefined : q.suspended === 'true', tenants }, q.limit, q.offset);
    return { items: rows.map(toProjectDto), total, limit: q.limit, offset: q.offset };
  }

  async get(name: string): Promise<ProjectDto> {
    const row = await this.projects.viewByName(name);
    if (!row) throw new NotFoundError('project', name);
    return toProjectDto(row);
  }

  /**
   * A JSON merge patch (see patchedSpec). Spec changes bump the generation
   * (and every Target's); selector changes re-sync Targets; all in one transaction.
   */
  async update(name: string, dto: UpdateProjectDto): Promise<ProjectDto> {
    const changed = await this.uow.transaction(async (tx): Promise<{ id: string; sourceMoved: boolean } | undefined> => {
      const p = this.refuseWhileDeleting(await findIn(tx, name));
      const spec = patchedSpec(p, dto);
      const tenant = await tx.tenants.lock(p.tenant);
      refuseOutsideTenant(tenant!, { ...spec, bootstrapRole: spec.bootstrapRole });
      this.checkAddresses(spec.sourceRepository, spec.cdeventsSink, dto.cdeventsSinkHeader === null ? false : !!dto.cdeventsSinkHeader || !!p.cdeventsSinkHeader, dto.notificationWebhook);
      const patch: Partial<ProjectEntity> = {};
      for (const key of Object.keys(spec) as Array<keyof ProjectSpec>) {
        if (JSON.stringify(p[key]) !== JSON.stringify(spec[key])) (patch as Record<string, unknown>)[key] = spec[key];
      }
      refuseMovedSecrets(p, spec, dto);
      let credentialsChanged = false;
      if (dto.registryCredentials === null && p.registryCredentialId) {
        patch.registryCredentialId = null;
        credentialsChanged = true;
      } else if (dto.registryCredentials) {
        const { kind, secret } = registrySecret(dto.registryCredentials);
        const binding = registryHostBinding(spec.sourceRepository);
        if (p.registryCredentialId) await tx.credentials.replace(p.registryCredentialId, kind, secret, binding);
        else patch.registryCredentialId = (await tx.credentials.store(kind, secret, binding)).id;
        credentialsChanged = true;
      }
      if (dto.cdeventsSinkHeader === null && p.cdeventsSinkHeader) patch.cdeventsSinkHeader = null;
      else if (dto.cdeventsSinkHeader) patch.cdeventsSinkHeader = sealSinkHeader(this.crypto, dto.cdeventsSinkHeader, { projectId: p.id, sinkUrl: spec.cdeventsSink ?? '' });
      // never compared with the stored one (it is sealed): sent is changed
      if (dto.notificationWebhook === null && p.notificationWebhook) patch.notificationWebhook = null;
      else if (dto.notificationWebhook) patch.notificationWebhook = sealWebhook(this.crypto, dto.notificationWebhook, p.id);
      if (Object.keys(patch).length === 0 && !credentialsChanged) return undefined;
      const generation = p.generation + 1;
      // A new source or new credentials: the poller resolves the tag again before any Target uses it.
      const sourceMoved = patch.sourceRepository !== undefined || patch.sourceTag !== undefined || credentialsChanged;
      await tx.projects.update(p.id, { ...patch, generation, ...(sourceMoved ? { sourceDigest: null, sourceCheckedAt: null, sourceError: null } : {}) });
      if (patch.registryCredentialId === null) await tx.credentials.delete(p.registryCredentialId!);
      await tx.targets.setGeneration(p.id, generation);
      const changed = [...Object.keys(patch).filter((k) => k !== 'registryCredentialId'), ...(credentialsChanged ? ['registryCredentials'] : [])];
      await this.note(tx, p, null, 'SpecChanged', `generation ${generation}: ${changed.join(', ')} changed`);
      if (patch.targetSelector) await this.membership.syncProject(tx, { ...p, ...patch, generation });
      return { id: p.id, sourceMoved };
    });
    // a spec change is a trigger; a new source is resolved first
    if (changed?.sourceMoved) this.triggers.sourceChanged(changed.id);
    else if (changed) this.triggers.runsDue();
    return this.get(name);
  }

  /**
   * `orphan`: the Project and its Targets go now, applied objects stay.
   * `delete`: Targets are marked Deleting; the scheduler prunes their instances, then removes the Project.
   */
  async delete(name: string, instances: 'delete' | 'orphan'): Promise<DeletionDto> {
    const result = await this.uow.transaction(async (tx): Promise<DeletionDto> => {
      const p = await findIn(tx, name);
      if (instances === 'orphan' || (await tx.targets.forProject(p.id)).length === 0) {
        await tx.targets.lockForProject(p.id);
        await this.note(tx, p, null, 'ProjectDeleted', instances === 'orphan' ? 'Project deleted; its applied objects were left in place' : 'Project deleted');
        await tx.projects.delete(p.id);
        if (p.registryCredentialId) await tx.credentials.delete(p.registryCredentialId);
        return { state: 'deleted' };
      }
      if (!p.deletionRequestedAt) {
        await tx.projects.update(p.id, { deletionRequestedAt: this.clock.now() });
        await tx.targets.setPhaseForProject(p.id, 'Deleting');
        await tx.targets.requestRun(p.id, undefined, { manual: false });
        await this.note(tx, p, null, 'DeletionRequested', 'Project deletion requested: applied instances will be removed from every cluster');
      }
      return { state: 'deleting' };
    });
    if (result.state === 'deleting') this.triggers.runsDue();
    return result;
  }

  async suspend(name: string, suspend: boolean): Promise<ProjectDto> {
    await this.uow.transaction(async (tx) => {
      const p = this.refuseWhileDeleting(await findIn(tx, name));
      if (p.suspend === suspend) return;
      await tx.projects.update(p.id, { suspend });
      await tx.targets.setPhaseForProject(p.id, suspend ? 'Suspended' : 'Pending');
      // due either way: an agent's assignment says it is suspended (a push claim skips a suspended Project)
      await tx.targets.requestRun(p.id, undefined, { manual: false });
      await this.note(tx, p, null, suspend ? 'Suspended' : 'Resumed', suspend ? 'reconciliation suspended' : 'reconciliation resumed');
    });
    this.triggers.runsDue();
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

  /** Records a Normal event about `p`, inside `tx` when given. */
  note(tx: Transaction | undefined, p: ProjectEntity, cluster: string | null, reason: HubEventReason, message: string): Promise<void> {
    return this.events.record({ projectId: p.id, clusterName: cluster, type: 'Normal', reason, message }, tx);
  }
}

/** The response view of one row read by ProjectsRepository.viewPage / viewByName. */
function toProjectDto(p: ProjectViewRow): ProjectDto {
  return {
    name: p.name,
    tenant: p.tenant,
    namespace: p.namespace,
    source: { repository: p.sourceRepository, tag: p.sourceTag, path: p.sourcePath },
    serviceAccountName: p.serviceAccountName,
    targets: p.targetSelector,
    rollout: rolloutView(p),
    interval: formatDuration(p.intervalSeconds),
    suspend: p.suspend,
    annotations: p.annotations,
    registryCredentials: p.credentialKind !== null && p.credentialFingerprint !== null ? { kind: p.credentialKind, fingerprint: p.credentialFingerprint } : null,
    cdeventsSink: p.cdeventsSink,
    cdeventsSinkHeader: p.cdeventsSinkHeader,
    notificationWebhook: p.notificationWebhook,
    targetRemoval: p.targetRemoval,
    overwriteOwnership: p.overwriteOwnership,
    bootstrap: p.bootstrapRole ? { serviceAccountRole: p.bootstrapRole } : null,
    generation: p.generation,
    status: { conditions: projectConditions(p), targets: Object.values(p.phases).reduce((a, b) => a + b, 0), ready: p.phases.Ready ?? 0, unhealthy: p.unhealthy, phases: p.phases, deleting: p.deleting },
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

/** The Project's own conditions, from its Targets' (a rollout wave holding some back). */
function projectConditions(p: ProjectViewRow): ProjectConditionDto[] {
  const out: ProjectConditionDto[] = [];
  const message = projectHold(wavesOf(p), p.held);
  if (message) {
    const since = p.held.map((h) => h.since).sort()[0];
    out.push({ type: 'Reconciling', status: 'True', reason: 'RolloutWaiting', message, lastTransitionTime: since });
  }
  const back = p.sourceDigest ? rolledBack(p.rolloutActions, formatRevision(p.sourceTag, p.sourceDigest)) : undefined;
  if (back) {
    out.push({ type: 'RolledBack', status: 'True', reason: 'RolloutFailed', message: `revision ${back.revision} rolled back from wave ${back.wave ?? 0} by ${back.by}; a new revision or \`rollout retry\` continues`, lastTransitionTime: back.at });
  }
  const outside = p.outsideDestinations;
  if (outside && outside.count > 0) {
    const more = outside.count > outside.clusters.length ? ` and ${outside.count - outside.clusters.length} more` : '';
    out.push({
      type: 'TargetsRestricted',
      status: 'True',
      reason: 'OutsideTenantDestinations',
      message: `${outside.count} cluster(s) match the targets but lie outside tenant "${p.tenant}"'s destinations, so nothing is applied there: ${outside.clusters.join(', ')}${more} (rule: destinations)`,
      lastTransitionTime: p.updatedAt,
    });
  }
  return out;
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

/** The tenant a new Project joins: the one named, else the caller's only tenant where it is operator, else `default` for a global caller. */
function tenantForCreation(named: string | undefined, caller: Principal | undefined): string {
  if (named !== undefined) {
    requireTenant(caller, named, 'operator', `tenant "${named}"`);
    return named;
  }
  const mine = tenantsAllowed(caller, 'operator');
  if (mine === undefined) return DEFAULT_TENANT;
  if (mine.length === 1) return mine[0];
  throw new InvalidInputError([`tenant: required: "${caller!.name}" is operator in ${mine.length === 0 ? 'no tenant' : mine.map((t) => `"${t}"`).join(', ')}`]);
}

function refuseOutsideTenant(tenant: TenantEntity, use: ProjectUse): void {
  const refusals = projectRefusals(tenant, use);
  if (refusals.length > 0) throw new ForbiddenError(refusals.join('; '));
}

async function findIn(tx: Transaction, name: string): Promise<ProjectEntity> {
  const p = await tx.projects.findByName(name);
  if (!p) throw new NotFoundError('project', name);
  return p;
}

async function storeRegistryCredentials(tx: Transaction, dto: RegistryCredentialsDto, sourceRepository: string): Promise<string> {
  const { kind, secret } = registrySecret(dto);
  return (await tx.credentials.store(kind, secret, registryHostBinding(sourceRepository))).id;
}

/**
 * Stored secrets never follow a new destination: moving the source to another
 * registry host, or the CDEvents sink to another URL, needs the new secret
 * (or null to drop the old one) in the same request.
 */
function refuseMovedSecrets(p: ProjectEntity, spec: ProjectSpec, dto: UpdateProjectDto): void {
  const problems: string[] = [];
  if (p.registryCredentialId && dto.registryCredentials === undefined && registryHostBinding(spec.sourceRepository) !== registryHostBinding(p.sourceRepository)) {
    problems.push(
      `source.repository: moves the source to registry host ${registryHostOf(spec.sourceRepository)}, but the stored registryCredentials were given for ${registryHostOf(p.sourceRepository)}: send registryCredentials with it (or null to drop them)`,
    );
  }
  if (p.cdeventsSinkHeader && dto.cdeventsSinkHeader === undefined && spec.cdeventsSink !== p.cdeventsSink) {
    problems.push(`cdeventsSink: changes where the stored cdeventsSinkHeader goes: send cdeventsSinkHeader with it (or null to drop it)`);
  }
  if (problems.length > 0) throw new ConflictError(problems.join('; '));
}

function registrySecret(dto: RegistryCredentialsDto): { kind: string; secret: object } {
  return dto.dockerConfigJson !== undefined
    ? { kind: 'dockerConfigJson', secret: { dockerConfigJson: dto.dockerConfigJson } }
    : { kind: 'basic', secret: { username: dto.username, password: dto.password } };
}
