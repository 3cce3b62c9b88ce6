import type { KubeObject } from './types';

/**
 * True when a server-side dry-run result differs from the live object in labels, annotations,
 * or the body without metadata and status. Objects not created yet (no resourceVersion) drift.
 * Empty and missing maps/lists count as equal, as Kubernetes' semantic equality does.
 */
export function hasDrifted(live: KubeObject, dryRun: KubeObject): boolean {
  if (!dryRun.metadata?.resourceVersion) return true;
  if (!semanticEqual(dryRun.metadata.labels, live.metadata.labels)) return true;
  if (!semanticEqual(dryRun.metadata.annotations, live.metadata.annotations)) return true;
  return !semanticEqual(bodyOf(dryRun), bodyOf(live));
}

/** The object without metadata and status. */
export function bodyOf(obj: KubeObject): Record<string, unknown> {
  const { metadata: _metadata, status: _status, ...rest } = obj;
  return rest;
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v as object).length === 0;
  return false;
}

/** Deep equality where undefined, null, {} and [] are interchangeable for containers. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const aContainer = a === undefined || a === null || typeof a === 'object';
  const bContainer = b === undefined || b === null || typeof b === 'object';
  if (aContainer && bContainer && isEmpty(a) && isEmpty(b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => semanticEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) {
    if (!semanticEqual(ao[k], bo[k])) return false;
  }
  return true;
}
