import type { Assignment, ConnectResponse, RegistryCredentials } from '@flotilla/agent-protocol';
import type { ProjectRegistryCredentials, TenantPolicy } from '@flotilla/engine';

/** What the hub knows of one Target on an agent cluster, to tell the agent. */
export interface AssignmentFacts {
  targetId: string;
  generation: number;
  project: { name: string; namespace: string; source: { repository: string; tag: string; path: string }; serviceAccountName: string; annotations: Record<string, string>; policy?: TenantPolicy };
  cluster: { name: string; group: string };
  digest: string;
  intervalSeconds: number;
  suspend: boolean;
  delete: boolean;
  registryCredentials?: ProjectRegistryCredentials;
}

/** The assignment message: everything the agent needs for this Project, nothing about other clusters. */
export function assignmentOf(f: AssignmentFacts): Assignment {
  return {
    targetId: f.targetId,
    generation: f.generation,
    projectName: f.project.name,
    projectNamespace: f.project.namespace,
    repository: f.project.source.repository,
    tag: f.project.source.tag,
    path: f.project.source.path,
    digest: f.digest,
    serviceAccountName: f.project.serviceAccountName,
    annotations: f.project.annotations,
    clusterName: f.cluster.name,
    clusterGroup: f.cluster.group,
    intervalSeconds: f.intervalSeconds,
    suspend: f.suspend,
    delete: f.delete,
    registryCredentials: f.registryCredentials ? registryCredentialsOf(f.registryCredentials) : undefined,
    tenantPolicy: f.project.policy ? { tenant: f.project.policy.tenant, namespaces: f.project.policy.namespaces, serviceAccounts: f.project.policy.serviceAccounts } : undefined,
  };
}

/** The hub message that gives the agent one assignment (new, or changed). */
export function assignmentChange(f: AssignmentFacts): ConnectResponse {
  return { body: { $case: 'change', value: { change: { $case: 'assignment', value: assignmentOf(f) } } } };
}

function registryCredentialsOf(c: ProjectRegistryCredentials): RegistryCredentials {
  switch (c.kind) {
    case 'basic':
      return { credentials: { $case: 'basic', value: { username: c.username, password: c.password } } };
    case 'token':
      return { credentials: { $case: 'token', value: c.token } };
    case 'dockerconfigjson':
      return { credentials: { $case: 'dockerConfigJson', value: c.config } };
  }
}
