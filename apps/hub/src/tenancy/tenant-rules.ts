// What a tenant allows its Projects, as pure checks. Every refusal names the
// rule that refused it, so a 403 or a condition can say which one to change.
import { type BootstrapRole, matchesNamePattern } from '@flotilla/engine';
import type { TenantDestinations } from '../database/entities';
import { type ClusterFacts, matchesLabelSelector } from '../targeting/selector';

/** The rules of one tenant, as stored. */
export interface TenantRules {
  name: string;
  destinations: TenantDestinations;
  namespaces: readonly string[];
  serviceAccounts: readonly string[];
  repositories: readonly string[];
  bootstrapRoles: readonly BootstrapRole[];
}

/** What of a Project a tenant's rules look at. */
export interface ProjectUse {
  namespace: string;
  serviceAccountName: string;
  sourceRepository: string;
  bootstrapRole: BootstrapRole | null;
}

// matchesNamePattern is the engine's, so hub admission and the agents' own check read patterns alike
export { matchesNamePattern };


/** A source lies under a prefix when it is the prefix or continues it past a `/` (`oci://r/team-a` does not allow `oci://r/team-ab`). */
export function underRepositoryPrefix(prefix: string, repository: string): boolean {
  if (prefix === 'oci://' || prefix.endsWith('/')) return repository.startsWith(prefix);
  return repository === prefix || repository.startsWith(`${prefix}/`);
}

/** Whether the tenant's Projects may reach the cluster. */
export function inDestinations(d: TenantDestinations, c: ClusterFacts): boolean {
  if (d.groups?.includes(c.group)) return true;
  return d.labelSelector !== undefined && matchesLabelSelector(d.labelSelector, c.labels);
}

export function allowsNamespace(t: TenantRules, namespace: string): boolean {
  return t.namespaces.some((p) => matchesNamePattern(p, namespace));
}

export function allowsServiceAccount(t: TenantRules, name: string): boolean {
  return t.serviceAccounts.some((p) => matchesNamePattern(p, name));
}

/** Every rule a Project's spec breaks, each naming the rule; empty when the tenant allows it. */
export function projectRefusals(t: TenantRules, p: ProjectUse): string[] {
  const out: string[] = [];
  if (!allowsNamespace(t, p.namespace)) out.push(`namespace "${p.namespace}" is outside tenant "${t.name}"'s namespaces ${list(t.namespaces)} (rule: namespaces)`);
  if (!allowsServiceAccount(t, p.serviceAccountName)) {
    out.push(`serviceAccountName "${p.serviceAccountName}" is outside tenant "${t.name}"'s service accounts ${list(t.serviceAccounts)} (rule: serviceAccounts)`);
  }
  if (!t.repositories.some((prefix) => underRepositoryPrefix(prefix, p.sourceRepository))) {
    out.push(`source.repository "${p.sourceRepository}" is outside tenant "${t.name}"'s repositories ${list(t.repositories)} (rule: repositories)`);
  }
  if (p.bootstrapRole !== null && !t.bootstrapRoles.includes(p.bootstrapRole)) {
    out.push(
      t.bootstrapRoles.length === 0
        ? `bootstrap is not allowed in tenant "${t.name}" (rule: bootstrapRoles)`
        : `bootstrap role "${p.bootstrapRole}" is not one of tenant "${t.name}"'s bootstrap roles ${list(t.bootstrapRoles)} (rule: bootstrapRoles)`,
    );
  }
  return out;
}

function list(items: readonly string[]): string {
  return items.length === 0 ? '[] (none)' : `[${items.join(', ')}]`;
}
