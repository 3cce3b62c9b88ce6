import { Injectable } from '@nestjs/common';
import type { Principal, TenantRole } from '../auth/roles';
import { NotFoundError } from '../common/errors';
import { ProjectsRepository } from '../repositories/projects.repository';
import { auditTenant, isGlobal, requireTenant } from '../tenancy/tenant-scope';

/**
 * The tenant check of every route naming a Project: a member reaches only
 * its tenants' Projects, with its role there. A Project's tenant never
 * changes, so checking before the route's own work cannot be outrun.
 */
@Injectable()
export class ProjectAccess {
  constructor(private readonly projects: ProjectsRepository) {}

  /**
   * Also names the tenant on the request, for its audit entry. Answers the
   * Project's tenant when it was read: always for a member, whose view of
   * the Project follows its role there.
   */
  async require(req: { principal?: Principal; tenant?: string | null }, project: string, need: TenantRole): Promise<string | undefined> {
    // a global caller's read is never refused here nor audited: it costs no lookup
    if (need === 'viewer' && isGlobal(req.principal)) return undefined;
    const tenant = await this.projects.tenantOf(project);
    if (tenant === undefined) {
      // a global caller gets the route's own 404 (deliveries outlive their Project)
      if (isGlobal(req.principal)) return undefined;
      throw new NotFoundError('project', project);
    }
    req.tenant = auditTenant(req.principal, tenant);
    requireTenant(req.principal, tenant, need, `project "${project}"`);
    return tenant;
  }
}
