import type { LabelSelector, LabelSelectorRequirement, TargetSelector } from '../database/entities';

/** What selection looks at on a cluster. */
export interface ClusterFacts {
  name: string;
  group: string;
  labels: Record<string, string>;
}

/** Kubernetes semantics: every matchLabels pair and every expression must hold; an empty selector matches all. */
export function matchesLabelSelector(sel: LabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    if (labels[k] !== v) return false;
  }
  return (sel.matchExpressions ?? []).every((e) => matchesRequirement(e, labels));
}

function matchesRequirement(r: LabelSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  switch (r.operator) {
    case 'In':
      return has && (r.values ?? []).includes(labels[r.key]);
    case 'NotIn':
      return !has || !(r.values ?? []).includes(labels[r.key]);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

/**
 * A Project targets a cluster when the cluster's name is listed, or its group
 * is listed, or the label selector (when given) matches. Nothing given selects nothing.
 */
export function clusterIsTargeted(t: TargetSelector, c: ClusterFacts): boolean {
  if (t.names?.includes(c.name)) return true;
  if (t.groups?.includes(c.group)) return true;
  return t.labelSelector !== undefined && matchesLabelSelector(t.labelSelector, c.labels);
}
