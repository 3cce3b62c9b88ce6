// §2.2 step 5: the items of one apply step turned into objects and checked
// with the API server's metadata rules. Problems are returned, not thrown,
// so all steps are checked together.
import type { TimoniIssue } from './errors';
import type { KubeObject } from './types';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const TOTAL_ANNOTATION_BYTES = 256 * 1024;
const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

export function isDnsSubdomain(s: string): boolean {
  return s.length <= 253 && DNS_SUBDOMAIN.test(s);
}

export function isDnsLabel(s: string): boolean {
  return s.length <= 63 && DNS_LABEL.test(s);
}

/** Kubernetes qualified name: optional DNS-subdomain prefix and `/`, then a name of ≤63 characters. */
export function isQualifiedName(key: string): boolean {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1];
  if (parts.length === 2 && (parts[0] === '' || !isDnsSubdomain(parts[0]))) return false;
  return name.length <= 63 && QUALIFIED_NAME.test(name);
}

function isPathSegment(s: string): boolean {
  return s !== '' && s !== '.' && s !== '..' && !s.includes('/') && !s.includes('%');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Metadata problems of one object, each prefixed with its identity. */
export function validateObject(obj: Record<string, unknown>, where: string): string[] {
  const errs: string[] = [];
  const meta = isObject(obj.metadata) ? obj.metadata : undefined;
  if (typeof obj.apiVersion !== 'string' || obj.apiVersion === '') errs.push(`${where}: apiVersion is required`);
  if (typeof obj.kind !== 'string' || obj.kind === '') errs.push(`${where}: kind is required`);
  if (!meta || typeof meta.name !== 'string' || meta.name === '') {
    errs.push(`${where}: metadata.name is required`);
    return errs;
  }
  const id = `${String(obj.kind)}/${meta.name}`;
  const group = String(obj.apiVersion).split('/').length === 2 ? String(obj.apiVersion).split('/')[0] : '';
  if (group === 'rbac.authorization.k8s.io' && RBAC_KINDS.has(String(obj.kind))) {
    if (!isPathSegment(meta.name)) errs.push(`${id}: metadata.name may not be '.', '..' or contain '/' or '%'`);
  } else if (!isDnsSubdomain(meta.name)) {
    errs.push(`${id}: metadata.name "${meta.name}" must be a lowercase RFC 1123 subdomain`);
  }
  if (meta.namespace !== undefined && (typeof meta.namespace !== 'string' || !isDnsLabel(meta.namespace))) {
    errs.push(`${id}: metadata.namespace "${String(meta.namespace)}" must be a lowercase RFC 1123 label`);
  }
  if (meta.labels !== undefined) {
    if (!isObject(meta.labels)) errs.push(`${id}: metadata.labels must be a map of strings`);
    else {
      for (const [k, v] of Object.entries(meta.labels)) {
        if (!isQualifiedName(k)) errs.push(`${id}: label key "${k}" is not a valid qualified name`);
        if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) errs.push(`${id}: label ${k} value "${String(v)}" is not a valid label value`);
      }
    }
  }
  if (meta.annotations !== undefined) {
    if (!isObject(meta.annotations)) errs.push(`${id}: metadata.annotations must be a map of strings`);
    else {
      let total = 0;
      for (const [k, v] of Object.entries(meta.annotations)) {
        if (!isQualifiedName(k.toLowerCase())) errs.push(`${id}: annotation key "${k}" is not a valid qualified name`);
        if (typeof v !== 'string') errs.push(`${id}: annotation ${k} must be a string`);
        total += k.length + String(v).length;
      }
      if (total > TOTAL_ANNOTATION_BYTES) errs.push(`${id}: annotations total ${total} bytes, more than 256 KiB`);
    }
  }
  return errs;
}

/**
 * The objects of one step: nulls skipped, lists expanded, Kustomizations
 * dropped, all validated. Timoni decodes each item as a Kubernetes
 * "unstructured" object, which is a list when its top-level `items` is a
 * list, whatever its kind: the items replace it, one level deep (an item's
 * own `items` stays data), and each must be an object. The wrapper still
 * needs a kind, as the decoder asks of anything it reads.
 */
export function stepObjects(step: string, items: unknown): { objects: KubeObject[]; issues: TimoniIssue[] } {
  const issues: TimoniIssue[] = [];
  const objects: KubeObject[] = [];
  if (!Array.isArray(items)) return { objects, issues: [{ message: `timoni.apply.${step} must be a list` }] };
  const addObject = (obj: Record<string, unknown>, where: string) => {
    if (typeof obj.apiVersion === 'string' && obj.apiVersion.startsWith('kustomize.config.k8s.io/') && obj.kind === 'Kustomization') return;
    const errs = validateObject(obj, where);
    if (errs.length > 0) issues.push(...errs.map((message) => ({ message: `timoni.apply.${step}: ${message}` })));
    else objects.push(obj as KubeObject);
  };
  items.forEach((item, i) => {
    const where = `item ${i}`;
    if (item === null) return;
    if (!isObject(item)) {
      issues.push({ message: `${where}: not an object` });
      return;
    }
    if (!Array.isArray(item.items)) {
      addObject(item, where);
      return;
    }
    if (typeof item.kind !== 'string' || item.kind === '') {
      issues.push({ message: `timoni.apply.${step}: ${where}: kind is required` });
      return;
    }
    const bad = item.items.findIndex((x) => !isObject(x));
    if (bad >= 0) {
      issues.push({ message: `timoni.apply.${step}: ${where}.items[${bad}]: not an object` });
      return;
    }
    item.items.forEach((x, j) => addObject(x as Record<string, unknown>, `${where}.items[${j}]`));
  });
  return { objects, issues };
}

/** Every struct under `config` with repository, tag, digest and reference gives its reference; sorted, unique. */
export function collectImages(config: unknown): string[] {
  const found = new Set<string>();
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isObject(v)) {
      if ('repository' in v && 'tag' in v && 'digest' in v && typeof v.reference === 'string') found.add(v.reference);
      Object.values(v).forEach(walk);
    }
  };
  walk(config);
  return [...found].sort();
}

export const INSTANCE_NAME_LABEL = 'instance.timoni.sh/name';
export const INSTANCE_NAMESPACE_LABEL = 'instance.timoni.sh/namespace';

/** §5.1: every rendered object carries the instance labels (overwriting). */
export function stampInstanceLabels(obj: KubeObject, instance: string, namespace: string): void {
  obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [INSTANCE_NAME_LABEL]: instance, [INSTANCE_NAMESPACE_LABEL]: namespace };
}
