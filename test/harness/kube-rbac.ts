import { kubeRequest } from './kube-http';
import type { KubeEndpoint } from './types';

export interface AccessQuestion {
  user: string;
  groups?: string[];
  namespace: string;
  verb: string;
  resource: string;
  group?: string;
}

/**
 * Polls SubjectAccessReview (as the harness admin) until `question` is
 * allowed. The API server's RBAC authorizer learns of new bindings through an
 * informer, so a binding created a moment ago may not be honoured yet; tests
 * that impersonate right after creating one wait here instead of flaking.
 */
export async function waitUntilAllowed(endpoint: KubeEndpoint, question: AccessQuestion, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const body = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: question.user,
      groups: question.groups,
      resourceAttributes: { namespace: question.namespace, verb: question.verb, resource: question.resource, group: question.group ?? '' },
    },
  };
  for (;;) {
    const res = await kubeRequest(endpoint, '/apis/authorization.k8s.io/v1/subjectaccessreviews', { token: endpoint.admin.token, method: 'POST', body });
    if ((res.json as { status?: { allowed?: boolean } } | undefined)?.status?.allowed) return;
    if (Date.now() > deadline) {
      throw new Error(`${question.user} still may not ${question.verb} ${question.resource} in ${question.namespace} after ${timeoutMs / 1000}s: ${res.text}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The user and groups the API server gives a service account's tokens. */
export function serviceAccountSubject(namespace: string, name: string): Pick<AccessQuestion, 'user' | 'groups'> {
  return { user: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'] };
}
