import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/roles';
import { ForbiddenError } from '../common/errors';
import { tenantsAllowed } from '../tenancy/tenant-scope';
import { type CursorPage, cursorPage, decodeCursor } from '../common/cursor';
import { type AuditFilter, AuditRepository, type AuditViewRow } from '../repositories/audit.repository';
import type { AuditEntryDto, AuditQuery } from './audit.dto';

@Injectable()
export class AuditService {
  constructor(private readonly audit: AuditRepository) {}

  async list(q: AuditQuery, principal: Principal | undefined): Promise<CursorPage<AuditEntryDto>> {
    const filter = { ...filterOf(q), tenants: tenantScope(principal) };
    const page = await this.audit.page(filter, q.limit, q.continue === undefined ? undefined : decodeCursor(q.continue));
    return cursorPage(page.rows.map(toDto), q.limit, page.next);
  }
}

/** The tenants whose entries `principal` may read; undefined: all of them (admins). Global non-admins read none. */
function tenantScope(principal: Principal | undefined): string[] | undefined {
  const tenants = tenantsAllowed(principal, 'viewer');
  if (tenants !== undefined) return tenants;
  if (principal?.role === 'admin') return undefined;
  throw new ForbiddenError(`the audit log is for admins and tenant members; "${principal?.name ?? 'anonymous'}" has global role ${principal?.role ?? 'none'} (rule: audit readers)`);
}

/** The query's filters; the pipe has checked each (and that until is after since). */
function filterOf(q: AuditQuery): Omit<AuditFilter, 'tenants'> {
  const filter: Omit<AuditFilter, 'tenants'> = {};
  if (q.actor !== undefined) filter.actor = q.actor;
  if (q.object !== undefined) {
    const slash = q.object.indexOf('/');
    filter.objectKind = slash < 0 ? q.object : q.object.slice(0, slash);
    if (slash >= 0) filter.objectName = q.object.slice(slash + 1);
  }
  if (q.since !== undefined) filter.since = new Date(q.since);
  if (q.until !== undefined) filter.until = new Date(q.until);
  return filter;
}

function toDto(r: AuditViewRow): AuditEntryDto {
  return {
    id: r.id,
    at: r.at,
    actor: { kind: r.actorKind, id: r.actorId, name: r.actorName, email: r.actorEmail },
    tenant: r.tenant,
    action: r.action,
    object: r.objectKind === null ? null : r.objectName === null ? r.objectKind : `${r.objectKind}/${r.objectName}`,
    outcome: r.outcome,
    requestId: r.requestId,
    sourceAddress: r.sourceAddress,
  };
}
