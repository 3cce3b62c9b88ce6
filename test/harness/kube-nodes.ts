import { kubeRequest } from './kube-http';
import type { KubeEndpoint } from './types';

/** The annotation kwok is started to manage: nodes without it are left alone. */
export const FAKE_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

/**
 * An image the kwok stages never "pull" (test/kube-apiserver/kwok/stages.yaml):
 * a pod using it stays Pending with ErrImagePull, so its owner never becomes ready.
 */
export const UNPULLABLE_IMAGE = 'registry.invalid/does-not-exist:1';

/** Name of the i-th fake node (from 0). */
export function fakeNodeName(i: number): string {
  return `kwok-node-${i}`;
}

/**
 * Creates `count` nodes for kwok to play the kubelet of. They carry the usual
 * labels of a Linux node so DaemonSets and node selectors treat them as real.
 */
export async function createFakeNodes(endpoint: KubeEndpoint, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => fakeNodeName(i));
  for (const name of names) {
    const res = await kubeRequest(endpoint, '/api/v1/nodes', {
      token: endpoint.admin.token,
      method: 'POST',
      timeoutMs: 10_000,
      body: {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name,
          annotations: { [FAKE_NODE_ANNOTATION]: 'fake' },
          labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', type: 'kwok' },
        },
      },
    });
    if (res.status !== 201 && res.status !== 409) throw new Error(`creating fake node ${name} answered ${res.status}: ${res.text}`);
  }
  return names;
}

/**
 * True once every named node reports Ready=True and carries no taint: the
 * node lifecycle controller taints a new node not-ready until it has seen it
 * Ready, and DaemonSet pods do not tolerate that taint.
 */
export async function nodesReady(endpoint: KubeEndpoint, names: string[]): Promise<boolean> {
  const res = await kubeRequest(endpoint, '/api/v1/nodes', { token: endpoint.admin.token, timeoutMs: 5_000 });
  if (res.status !== 200) return false;
  type Node = { metadata: { name: string }; spec?: { taints?: unknown[] }; status?: { conditions?: { type: string; status: string }[] } };
  const ready = new Set(
    (res.json as { items: Node[] }).items
      .filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') && !n.spec?.taints?.length)
      .map((n) => n.metadata.name),
  );
  return names.every((n) => ready.has(n));
}
