// What `project bootstrap` puts on a standalone cluster for one Project: its
// namespace, the service account the agent impersonates (bound to a role in
// that namespace only), a pull secret when registry credentials are given,
// and, with it, the RoleBinding that lets the agent read Secrets there (the
// agent reads none cluster-wide), and the Project resource itself.
import type { KubeObject } from '@flotilla/kube';
import { credentialsFromFlag, parseReference } from '@flotilla/oci';

export const PROJECT_API_VERSION = 'projects.timoni.sh/v1alpha1';
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'flotilla' };

export interface BootstrapInput {
  name: string;
  namespace: string;
  repository: string;
  tag: string;
  path: string;
  serviceAccount: string;
  /** ClusterRole bound to the service account in the namespace only */
  role: string;
  /** `user:password` or a token, for the repository's registry */
  creds?: string;
  annotations: Record<string, string>;
}

export const pullSecretName = (project: string) => `${project}-pull`;

export function tenantObjects(input: BootstrapInput): KubeObject[] {
  const { name, namespace: ns, serviceAccount } = input;
  const secret = input.creds ? pullSecret(input) : undefined;
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: MANAGED_BY } },
    ...(secret ? [secret] : []),
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: serviceAccount, namespace: ns, labels: MANAGED_BY },
      ...(secret ? { imagePullSecrets: [{ name: secret.metadata.name }] } : {}),
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `flotilla-${serviceAccount}`, namespace: ns, labels: MANAGED_BY },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: input.role },
      subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace: ns }],
    },
    ...(secret ? [agentSecretReader(ns)] : []),
    {
      apiVersion: PROJECT_API_VERSION,
      kind: 'Project',
      metadata: { name, namespace: ns, labels: MANAGED_BY, ...(Object.keys(input.annotations).length ? { annotations: input.annotations } : {}) },
      spec: { serviceAccountName: serviceAccount, source: { repository: input.repository, tag: input.tag, path: input.path } },
    },
  ];
}

/** The agent's read of Secrets in this namespace (deploy/agent/rbac.yaml's flotilla-agent-secret-reader). */
function agentSecretReader(namespace: string): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'flotilla-agent-secret-reader', namespace, labels: MANAGED_BY },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'flotilla-agent-secret-reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'flotilla-agent', namespace: 'flotilla-system' }],
  };
}

/** A kubernetes.io/dockerconfigjson Secret for the repository's registry, as `kubectl create secret docker-registry` makes. */
function pullSecret(input: BootstrapInput): KubeObject {
  const host = parseReference(input.repository).registry;
  const c = credentialsFromFlag(input.creds!);
  const auth = c.kind === 'basic' ? { username: c.username, password: c.password, auth: Buffer.from(`${c.username}:${c.password}`).toString('base64') } : { registrytoken: c.kind === 'token' ? c.token : '' };
  const config = JSON.stringify({ auths: { [host]: auth } });
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: { name: pullSecretName(input.name), namespace: input.namespace, labels: MANAGED_BY },
    data: { '.dockerconfigjson': Buffer.from(config).toString('base64') },
  };
}
