import type { Assignment } from '@flotilla/agent-protocol';
import {
  HUB_DIGEST_ANNOTATION,
  HUB_GENERATION_ANNOTATION,
  HUB_INTERVAL_ANNOTATION,
  HUB_MANAGED_BY,
  HUB_TARGET_ANNOTATION,
  HUB_TENANT_POLICY_ANNOTATION,
  PROJECT_API_VERSION,
  PROJECT_KIND,
  RECONCILE_REQUESTED_ANNOTATION,
  RUNTIME_ANNOTATION_PREFIX,
  SUSPEND_ANNOTATION,
  type ProjectResource,
} from '../project/project-resource';
import { MANAGED_BY_LABEL } from './project-ownership';

/**
 * The Project resource an assignment becomes: the standalone CRD, labelled
 * as the hub's, pinned to the hub's digest, run at the hub's interval. Each
 * new assignment generation is also a reconcile request, so the agent runs it at once.
 */
export function projectResourceOf(a: Assignment): ProjectResource {
  const runtime: Record<string, string> = {};
  for (const [k, v] of Object.entries(a.annotations)) runtime[k.startsWith(RUNTIME_ANNOTATION_PREFIX) ? k : `${RUNTIME_ANNOTATION_PREFIX}${k}`] = v;
  return {
    apiVersion: PROJECT_API_VERSION,
    kind: PROJECT_KIND,
    metadata: {
      name: a.projectName,
      namespace: a.projectNamespace,
      labels: { [MANAGED_BY_LABEL]: HUB_MANAGED_BY },
      annotations: {
        ...runtime,
        [`${RUNTIME_ANNOTATION_PREFIX}cluster`]: a.clusterName,
        [`${RUNTIME_ANNOTATION_PREFIX}group`]: a.clusterGroup,
        [HUB_TARGET_ANNOTATION]: a.targetId,
        [HUB_GENERATION_ANNOTATION]: String(a.generation),
        [HUB_DIGEST_ANNOTATION]: a.digest,
        [HUB_INTERVAL_ANNOTATION]: String(a.intervalSeconds),
        [RECONCILE_REQUESTED_ANNOTATION]: `hub-${a.generation}`,
        [SUSPEND_ANNOTATION]: a.suspend ? 'true' : 'false',
        ...(a.tenantPolicy ? { [HUB_TENANT_POLICY_ANNOTATION]: JSON.stringify({ tenant: a.tenantPolicy.tenant, namespaces: a.tenantPolicy.namespaces, serviceAccounts: a.tenantPolicy.serviceAccounts }) } : {}),
      },
    },
    spec: {
      serviceAccountName: a.serviceAccountName,
      source: { repository: a.repository, tag: a.tag, path: a.path },
    },
  };
}
