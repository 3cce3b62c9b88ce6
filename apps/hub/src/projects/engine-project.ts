import type { ProjectSpec } from '@flotilla/engine';
import type { TargetRunProject } from '../scheduler/target-runner';
import type { ProjectEntity, TenantEntity } from '../database/entities';

/** The Project as the engine (and an agent's assignment) sees it, with its tenant's limits when the tenant is known. */
export function engineProject(p: ProjectEntity, tenant?: TenantEntity | null): ProjectSpec & { overwriteOwnership: boolean } {
  return {
    name: p.name,
    namespace: p.namespace,
    source: { repository: p.sourceRepository, tag: p.sourceTag, path: p.sourcePath },
    serviceAccountName: p.serviceAccountName,
    annotations: p.annotations,
    overwriteOwnership: p.overwriteOwnership,
    // a tenant gone from under its Project (it cannot be deleted while it has one) allows nothing
    ...(tenant !== undefined ? { policy: { tenant: p.tenant, namespaces: tenant?.namespaces ?? [], serviceAccounts: tenant?.serviceAccounts ?? [] } } : {}),
  };
}

/** The Project a push run or dry run hands the engine adapter: the engine's, with its tenant's limits, and the hub's own fields. */
export function runProject(p: ProjectEntity, tenant: TenantEntity | null): TargetRunProject {
  return { ...engineProject(p, tenant), generation: p.generation, bootstrapRole: p.bootstrapRole };
}
