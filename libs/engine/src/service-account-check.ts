// Before anything runs as the Project's service account: does it exist? A
// missing one (or a missing namespace) otherwise shows up as a 403 on the
// first request made as it, which names neither.
import { KubeApiError, type KubeObject, type ObjectClient } from '@flotilla/kube';
import { ClusterUnreachableError, messageOf, ServiceAccountNotFoundError } from './errors';
import type { ProjectSpec } from './types';

/**
 * Reads the service account (and, when it is missing, the namespace) with the
 * caller's own identity. Throws ServiceAccountNotFoundError naming what is
 * missing, ClusterUnreachableError when the API server does not answer; any
 * other refusal (the caller may not read them) leaves the question to the run.
 * Returns the service account when it was read, so its pull secrets need no second read.
 */
export async function checkServiceAccount(client: ObjectClient, project: ProjectSpec, cluster: string): Promise<KubeObject | undefined> {
  const { namespace, serviceAccountName } = project;
  try {
    const sa = await client.getOptional({ apiVersion: 'v1', kind: 'ServiceAccount', namespace, name: serviceAccountName });
    if (sa) return sa;
    const ns = await client.getOptional({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
    throw new ServiceAccountNotFoundError(namespace, serviceAccountName, !ns, cluster);
  } catch (err) {
    if (err instanceof ServiceAccountNotFoundError) throw err;
    if (err instanceof KubeApiError && err.statusCode === 0) throw new ClusterUnreachableError(`cluster ${cluster} API server: ${messageOf(err)}`, { cause: err });
    if (err instanceof KubeApiError) return undefined;
    throw err;
  }
}
