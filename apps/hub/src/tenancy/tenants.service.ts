import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/roles';
import { ConflictError, NotFoundError } from '../common/errors';
import type { Page } from '../common/paging';
import type { TenantEntity } from '../database/entities';
import { AuthService } from '../auth/auth.service';
import { NotificationBus } from '../notify/notification-bus';
import { RunTriggers } from '../scheduler/run-triggers';
import { TenantsRepository } from '../repositories/tenants.repository';
import { UnitOfWork } from '../repositories/unit-of-work';
import { MembershipService } from '../targeting/membership.service';
import { DEFAULT_TENANT } from './default-tenant';
import { requireTenant, tenantsAllowed } from './tenant-scope';
import type { CreateTenantDto, TenantDto, TenantSpecFields, UpdateTenantDto } from './tenants.dto';

/** Tenants: admins write them; a member reads its own. */
@Injectable()
export class TenantsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly tenants: TenantsRepository,
    private readonly membership: MembershipService,
    private readonly auth: AuthService,
    private readonly triggers: RunTriggers,
    private readonly bus: NotificationBus,
  ) {}

  async create(dto: CreateTenantDto): Promise<TenantDto> {
    return toTenantDto(await this.tenants.insert({ name: dto.name, ...specOf(dto) }));
  }

  async list(limit: number, offset: number, caller: Principal | undefined): Promise<Page<TenantDto>> {
    const [rows, total] = await this.tenants.list(limit, offset, tenantsAllowed(caller, 'viewer'));
    return { items: rows.map(toTenantDto), total, limit, offset };
  }

  async get(name: string, caller: Principal | undefined): Promise<TenantDto> {
    // refused first: a member learns nothing of which other tenants exist
    requireTenant(caller, name, 'viewer', `tenant "${name}"`);
    const row = await this.tenants.findByName(name);
    if (!row) throw new NotFoundError('tenant', name);
    return toTenantDto(row);
  }

  /**
   * Replaces the fields given. New destinations re-sync the Targets of every
   * Project of the tenant in the same transaction: clusters that left them
   * lose their Targets (and instances, as each Project's targetRemoval says).
   */
  async update(name: string, dto: UpdateTenantDto): Promise<TenantDto> {
    await this.uow.transaction(async (tx) => {
      const t = await tx.tenants.lock(name);
      if (!t) throw new NotFoundError('tenant', name);
      const patch = specOf(dto);
      if (Object.keys(patch).length === 0) return;
      await tx.tenants.update(t.id, patch);
      const projects = await tx.projects.ofTenant(name);
      if (patch.destinations !== undefined && JSON.stringify(patch.destinations) !== JSON.stringify(t.destinations)) {
        for (const p of projects) await this.membership.syncProject(tx, { ...p, tenantRow: undefined });
      }
      // the limits every run carries changed: each Target runs again under them (agents get them in a new assignment)
      if (changed(patch.namespaces, t.namespaces) || changed(patch.serviceAccounts, t.serviceAccounts)) {
        for (const p of projects) await tx.targets.requestRun(p.id, undefined, { manual: false });
        tx.afterCommit(() => this.triggers.runsDue());
      }
    });
    this.bus.publish({ topic: 'tenants-changed' });
    return toTenantDto((await this.tenants.findByName(name))!);
  }

  /** Refused (409) while Projects belong to it; its tokens go with it and stop working on every replica. */
  async delete(name: string): Promise<void> {
    const revoked = await this.uow.transaction(async (tx) => {
      const t = await tx.tenants.lock(name);
      if (!t) throw new NotFoundError('tenant', name);
      if (name === DEFAULT_TENANT) throw new ConflictError(`tenant "${DEFAULT_TENANT}" holds the Projects a global caller creates without naming a tenant; narrow it instead of deleting it`);
      const projects = await tx.tenants.countProjects(name);
      if (projects > 0) throw new ConflictError(`tenant "${name}" still has ${projects} Project(s): delete them first`);
      const tokenIds = await tx.tokens.idsOfTenant(name);
      await tx.tenants.delete(t.id);
      return tokenIds;
    });
    this.auth.forget(revoked);
    this.bus.publish({ topic: 'tenants-changed' });
    // its claim bindings went with it (foreign key): every replica reads them again
    this.bus.publish({ topic: 'oidc-bindings-changed' });
  }
}

function changed(next: unknown, current: unknown): boolean {
  return next !== undefined && JSON.stringify(next) !== JSON.stringify(current);
}

function specOf(dto: TenantSpecFields): Partial<TenantEntity> {
  const out: Partial<TenantEntity> = {};
  if (dto.description !== undefined) out.description = dto.description;
  if (dto.destinations !== undefined) {
    out.destinations = {};
    if (dto.destinations.groups) out.destinations.groups = dto.destinations.groups;
    if (dto.destinations.labelSelector) {
      const s = dto.destinations.labelSelector;
      out.destinations.labelSelector = {
        ...(s.matchLabels ? { matchLabels: s.matchLabels } : {}),
        ...(s.matchExpressions ? { matchExpressions: s.matchExpressions.map((e) => ({ key: e.key, operator: e.operator, ...(e.values ? { values: e.values } : {}) })) } : {}),
      };
    }
  }
  if (dto.namespaces !== undefined) out.namespaces = dto.namespaces;
  if (dto.serviceAccounts !== undefined) out.serviceAccounts = dto.serviceAccounts;
  if (dto.repositories !== undefined) out.repositories = dto.repositories;
  if (dto.bootstrapRoles !== undefined) out.bootstrapRoles = dto.bootstrapRoles;
  return out;
}

export function toTenantDto(t: TenantEntity): TenantDto {
  return {
    name: t.name,
    description: t.description,
    destinations: t.destinations,
    namespaces: t.namespaces,
    serviceAccounts: t.serviceAccounts,
    repositories: t.repositories,
    bootstrapRoles: t.bootstrapRoles,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
