import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { ClusterConnection, ObjectClient, targetOf, waitForServedKinds, waitForSet, type KubeObject } from '@flotilla/kube';
import { serviceAccountSubject, waitUntilAllowed } from '../harness/kube-rbac';
import type { KubeEndpoint } from '../harness/types';
import { AGENT_CRD } from './demo-paths';

/** The namespace the demo's Project lives in and its instances are applied to, on every cluster. */
export const DEMO_NAMESPACE = 'demo';
/** The service account the hub and the agent impersonate for the Project. */
export const DEMO_SERVICE_ACCOUNT = 'deployer';
/** Where the agent keeps its identity (key and certificate) in its cluster. */
export const AGENT_NAMESPACE = 'flotilla-system';

const FIELD_MANAGER = 'flotilla-demo';
const WAIT = { intervalMs: 250, initialIntervalMs: 50, timeoutMs: 60_000, failFast: true };

function adminClient(kube: KubeEndpoint): ObjectClient {
  return new ObjectClient(ClusterConnection.create({ server: kube.server, caData: kube.caData, token: kube.admin.token }));
}

/**
 * What a platform team does before a Project may apply: the Project's
 * namespace, its service account, and a Role with just what the hello module
 * and the engine need (its objects, the inventory Secrets, events), bound to
 * that account. Resolves once RBAC honours the binding.
 */
export async function prepareTenant(kube: KubeEndpoint): Promise<void> {
  const client = adminClient(kube);
  const apply = (obj: KubeObject) => client.apply(obj, { dryRun: false, force: true, fieldManager: FIELD_MANAGER });
  const ns = DEMO_NAMESPACE;
  try {
    await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEMO_SERVICE_ACCOUNT, namespace: ns } });
    const all = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'flotilla-deployer', namespace: ns },
      rules: [
        { apiGroups: [''], resources: ['namespaces'], resourceNames: [ns], verbs: ['get'] },
        { apiGroups: [''], resources: ['services', 'configmaps', 'secrets'], verbs: all },
        { apiGroups: ['apps'], resources: ['deployments'], verbs: all },
        { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get'] },
        { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
      ],
    });
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'flotilla-deployer', namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'flotilla-deployer' },
      subjects: [{ kind: 'ServiceAccount', name: DEMO_SERVICE_ACCOUNT, namespace: ns }],
    });
    const subject = serviceAccountSubject(ns, DEMO_SERVICE_ACCOUNT);
    await waitUntilAllowed(kube, { ...subject, namespace: ns, verb: 'create', resource: 'deployments', group: 'apps' }, 30_000);
  } finally {
    await client.connection.close();
  }
}

/**
 * What the agent needs in its cluster besides the tenant: the Project CRD
 * it writes its assignments as (deploy/agent/crd.yaml), served, and the
 * namespace of its identity Secret.
 */
export async function prepareAgentCluster(kube: KubeEndpoint): Promise<void> {
  const client = adminClient(kube);
  try {
    const crds = parseAllDocuments(readFileSync(AGENT_CRD, 'utf8'))
      .map((doc) => doc.toJS() as KubeObject | null)
      .filter((obj): obj is KubeObject => obj?.kind === 'CustomResourceDefinition');
    for (const crd of crds) await client.apply(crd, { dryRun: false, force: true, fieldManager: FIELD_MANAGER });
    await client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: AGENT_NAMESPACE } }, { dryRun: false, force: true, fieldManager: FIELD_MANAGER });
    await waitForSet(client, crds.map(targetOf), WAIT);
    await waitForServedKinds(client, crds, WAIT);
  } finally {
    await client.connection.close();
  }
}
