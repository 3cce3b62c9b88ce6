// Installs deploy/agent/ into the harness API server the way an operator would
// (server-side apply of every manifest), and gives specs the agent's identity.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ClusterConnection, ObjectClient, targetOf, waitForSet, type KubeObject } from '@flotilla/kube';
import { waitForServedKinds } from '../../../libs/kube/src/discovery-wait';
import { harnessEnv } from '../../../test/harness/env';
import { kubeconfigYaml } from '../../hub/test/kubeconfig';
import { serviceAccountSubject, waitUntilAllowed } from '../../../test/harness/kube-rbac';

export const DEPLOY_DIR = join(__dirname, '..', '..', '..', 'deploy', 'agent');
/** What connected mode adds to the standalone install. */
export const CONNECTED_DEPLOY_DIR = join(__dirname, '..', '..', '..', 'deploy', 'agent-connected');
export const AGENT_NAMESPACE = 'flotilla-system';
export const AGENT_SERVICE_ACCOUNT = 'flotilla-agent';

const FIELD_MANAGER = 'flotilla-test';
const WAIT = { intervalMs: 500, initialIntervalMs: 50, timeoutMs: 30_000, failFast: true };

// What an object needs to exist first: CRDs and namespaces, then identities, then RBAC, then workloads.
const KIND_ORDER = ['CustomResourceDefinition', 'Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];
const rank = (kind: string) => {
  const i = KIND_ORDER.indexOf(kind);
  return i < 0 ? KIND_ORDER.length : i;
};

/** Every YAML document of deploy/agent/*.yaml, CRD and namespace first (file order otherwise). */
export function loadInstallManifests(dir = DEPLOY_DIR): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      if (doc.errors.length) throw new Error(`${file}: not valid YAML: ${doc.errors[0].message}`, { cause: doc.errors[0] });
      const obj = doc.toJS() as KubeObject | null;
      if (obj === null) continue; // an empty document (e.g. a trailing ---)
      if (!obj.apiVersion || !obj.kind || !obj.metadata?.name) throw new Error(`${file}: a document without apiVersion, kind or metadata.name`);
      objects.push(obj);
    }
  }
  // Array.prototype.sort is stable: same-kind objects keep their file order
  return objects.sort((a, b) => rank(a.kind) - rank(b.kind));
}

/**
 * Server-side applies the manifests (force, strict field validation so a typo in
 * a manifest fails here), then waits until the CRD is Established and discovery
 * serves projects.timoni.sh/v1alpha1. Idempotent: specs may call it repeatedly.
 */
export async function installAgent(client: ObjectClient, dir = DEPLOY_DIR): Promise<void> {
  const objects = loadInstallManifests(dir);
  for (const obj of objects) {
    await client.connection.request({
      method: 'PATCH',
      path: await client.objectPath({ apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name }),
      query: { fieldManager: FIELD_MANAGER, force: true, fieldValidation: 'Strict' },
      body: obj,
      contentType: 'application/apply-patch+yaml',
      subject: `${obj.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name}`,
    });
  }
  const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
  await waitForSet(client, crds.map(targetOf), WAIT);
  await waitForServedKinds(client, crds, WAIT);
}

/** An admin connection to the harness API server (close it after the spec). */
export function adminClient(): ObjectClient {
  const kube = harnessEnv().kube;
  return new ObjectClient(ClusterConnection.create({ server: kube.server, caData: kube.caData, token: kube.admin.token }));
}

/** A one-hour token of flotilla-system/flotilla-agent from the TokenRequest API. */
export async function agentToken(client: ObjectClient): Promise<string> {
  const res = await client.connection.request<{ status?: { token?: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${AGENT_NAMESPACE}/serviceaccounts/${AGENT_SERVICE_ACCOUNT}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    subject: `ServiceAccount/${AGENT_NAMESPACE}/${AGENT_SERVICE_ACCOUNT}`,
  });
  const token = res?.status?.token;
  if (!token) throw new Error(`ServiceAccount/${AGENT_NAMESPACE}/${AGENT_SERVICE_ACCOUNT}: TokenRequest returned no token`);
  return token;
}

/** A kubeconfig (YAML) that authenticates to the harness API server as the agent's service account. */
export async function agentKubeconfig(client: ObjectClient): Promise<string> {
  const kube = harnessEnv().kube;
  return kubeconfigYaml({ server: kube.server, caData: kube.caData, token: await agentToken(client), context: 'flotilla-agent' });
}

/**
 * What an operator does for a namespace whose Projects use pull secrets or a
 * sink header: binds the agent's secret-reader ClusterRole there (the install
 * grants no Secret read outside the agent's own). Waits until RBAC allows it.
 */
export async function grantSecretRead(client: ObjectClient, namespace: string): Promise<void> {
  await client.apply(
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'flotilla-agent-secret-reader', namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'flotilla-agent-secret-reader' },
      subjects: [{ kind: 'ServiceAccount', name: AGENT_SERVICE_ACCOUNT, namespace: AGENT_NAMESPACE }],
    } as KubeObject,
    { dryRun: false, force: true, fieldManager: FIELD_MANAGER },
  );
  await waitUntilAllowed(harnessEnv().kube, { ...serviceAccountSubject(AGENT_NAMESPACE, AGENT_SERVICE_ACCOUNT), namespace, verb: 'get', resource: 'secrets', group: '' });
}

/** Takes away what the connected install adds to the standalone one (the API server is shared by the whole run). */
export async function removeConnectedInstall(client: ObjectClient): Promise<void> {
  for (const [apiVersion, kind, namespace, name] of [
    ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', undefined, 'flotilla-agent-connected'],
    ['rbac.authorization.k8s.io/v1', 'ClusterRole', undefined, 'flotilla-agent-connected'],
    ['rbac.authorization.k8s.io/v1', 'RoleBinding', AGENT_NAMESPACE, 'flotilla-agent-identity'],
    ['rbac.authorization.k8s.io/v1', 'Role', AGENT_NAMESPACE, 'flotilla-agent-identity'],
    ['rbac.authorization.k8s.io/v1', 'RoleBinding', AGENT_NAMESPACE, 'flotilla-agent-self-upgrade'],
    ['rbac.authorization.k8s.io/v1', 'Role', AGENT_NAMESPACE, 'flotilla-agent-self-upgrade'],
    ['v1', 'Secret', AGENT_NAMESPACE, 'flotilla-agent-hub'],
  ] as const) {
    await client.delete({ apiVersion, kind, namespace, name }).catch(() => undefined);
  }
}
