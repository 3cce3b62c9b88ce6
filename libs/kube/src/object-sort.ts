import { parseApiVersion } from './object-id';
import type { KubeObject } from './types';

/** Kinds applied first, in this order (Timoni/Flux ssa apply order). */
export const KIND_ORDER_FIRST: readonly string[] = [
  'CustomResourceDefinition',
  'Namespace',
  'ClusterRole',
  'ClusterClass',
  'RuntimeClass',
  'PriorityClass',
  'StorageClass',
  'VolumeSnapshotClass',
  'IngressClass',
  'GatewayClass',
  'ClusterRoleBinding',
  'ResourceQuota',
  'ServiceAccount',
  'Role',
  'RoleBinding',
  'ConfigMap',
  'Secret',
  'Service',
  'LimitRange',
  'Deployment',
  'StatefulSet',
  'CronJob',
  'PodDisruptionBudget',
];

/** Kinds applied after every unknown kind (webhooks would otherwise intercept the rest). */
export const KIND_ORDER_LAST: readonly string[] = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];

function kindRank(kind: string): number {
  const first = KIND_ORDER_FIRST.indexOf(kind);
  if (first >= 0) return first;
  const last = KIND_ORDER_LAST.indexOf(kind);
  if (last >= 0) return KIND_ORDER_FIRST.length + 1 + last;
  return KIND_ORDER_FIRST.length;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders objects for apply: kind table, then group, kind, namespace, name. Does not mutate. */
export function sortForApply<T extends KubeObject>(objects: readonly T[]): T[] {
  return [...objects].sort((a, b) => {
    const rank = kindRank(a.kind) - kindRank(b.kind);
    if (rank) return rank;
    return (
      compareStrings(parseApiVersion(a.apiVersion).group, parseApiVersion(b.apiVersion).group) ||
      compareStrings(a.kind, b.kind) ||
      compareStrings(a.metadata.namespace ?? '', b.metadata.namespace ?? '') ||
      compareStrings(a.metadata.name, b.metadata.name)
    );
  });
}

/** Reverse apply order, for prune and delete. */
export function sortForDelete<T extends KubeObject>(objects: readonly T[]): T[] {
  return sortForApply(objects).reverse();
}

/** One apply stage: its objects and whether they are waited for before the next stage. */
export interface ApplyStage {
  name: 'cluster-definitions' | 'classes' | 'roles' | 'resources';
  objects: KubeObject[];
  /** CRDs, Namespaces, ClusterRoles and *Class kinds are waited for even without --wait */
  wait: boolean;
}

function stageOf(obj: KubeObject): ApplyStage['name'] {
  const { group } = parseApiVersion(obj.apiVersion);
  if (group === 'apiextensions.k8s.io') return 'cluster-definitions';
  if (obj.apiVersion === 'v1' && obj.kind === 'Namespace') return 'cluster-definitions';
  if (obj.kind === 'ClusterRole' && group === 'rbac.authorization.k8s.io') return 'cluster-definitions';
  if (obj.kind.endsWith('Class')) return 'classes';
  if (obj.kind === 'Role' && group === 'rbac.authorization.k8s.io') return 'roles';
  return 'resources';
}

/** Splits one apply step into the §5.2 stages (empty stages dropped), each sorted by kind order. */
export function stageObjects(objects: readonly KubeObject[]): ApplyStage[] {
  const names: ApplyStage['name'][] = ['cluster-definitions', 'classes', 'roles', 'resources'];
  return names
    .map((name) => ({
      name,
      objects: sortForApply(objects.filter((o) => stageOf(o) === name)),
      wait: name === 'cluster-definitions' || name === 'classes',
    }))
    .filter((s) => s.objects.length > 0);
}
