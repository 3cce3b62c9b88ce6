// A tenant's limits on where a Project applies, checked by the engine on
// every run, on the hub and on agents alike: an agent refuses an assignment
// beyond them whatever else the hub sent, so a hub account cannot use the
// agent outside its tenant.
import { TenantPolicyError } from './errors';
import type { ProjectSpec } from './types';

export interface TenantPolicy {
  tenant: string;
  /** names, or prefixes ending in `*` */
  namespaces: string[];
  /** names, or prefixes ending in `*` */
  serviceAccounts: string[];
}

/** The exact name, or a prefix followed by a final `*` (`*` alone: any); linear in the name. */
export function matchesNamePattern(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

/** Throws TenantPolicyError when the Project's namespace or service account lies outside its policy. */
export function checkProjectPolicy(project: ProjectSpec): void {
  const policy = project.policy;
  if (!policy) return;
  if (!policy.namespaces.some((p) => matchesNamePattern(p, project.namespace))) {
    throw new TenantPolicyError(`namespace "${project.namespace}" is outside tenant "${policy.tenant}"'s namespaces [${policy.namespaces.join(', ')}] (rule: namespaces)`);
  }
  if (!policy.serviceAccounts.some((p) => matchesNamePattern(p, project.serviceAccountName))) {
    throw new TenantPolicyError(`service account "${project.serviceAccountName}" is outside tenant "${policy.tenant}"'s service accounts [${policy.serviceAccounts.join(', ')}] (rule: serviceAccounts)`);
  }
}

/** Throws TenantPolicyError, before anything of the component is applied, when one of its instances would land outside the policy's namespaces. */
export function checkInstancesPolicy(project: ProjectSpec, component: string, instances: ReadonlyArray<{ name: string; namespace: string }>): void {
  const policy = project.policy;
  if (!policy) return;
  const outside = instances.find((i) => !policy.namespaces.some((p) => matchesNamePattern(p, i.namespace)));
  if (outside) {
    throw new TenantPolicyError(
      `component ${component}: instance ${outside.name} would go to namespace "${outside.namespace}", outside tenant "${policy.tenant}"'s namespaces [${policy.namespaces.join(', ')}] (rule: namespaces); nothing of the component was applied`,
    );
  }
}
