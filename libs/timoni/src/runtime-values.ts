// Runtime values (§4.2–4.4): `k8s:` queries read through the caller's
// reader, `for` expressions evaluated with CUE over `obj`, Secret values
// base64-decoded, later refs overriding earlier ones; then the Project
// annotations and the cluster identity on top.
import { CueEvaluationError, type CueEngine } from '@flotilla/cue';
import { RuntimeError } from './errors';
import type { ClusterIdentity, KubeObject, RuntimeDefinition, RuntimeObjectReader, RuntimeObjectRef, RuntimeValues, TenantOptions } from './types';

export const CLUSTER_NAME_VAR = 'TIMONI_CLUSTER_NAME';
export const CLUSTER_GROUP_VAR = 'TIMONI_CLUSTER_GROUP';
export const ANNOTATION_PREFIX = 'runtime.timoni.sh/';
export const CLUSTER_ANNOTATION = 'runtime.timoni.sh/cluster';
export const GROUP_ANNOTATION = 'runtime.timoni.sh/group';
/** Timoni's name for the implicit cluster: no TIMONI_CLUSTER_* values for it. */
export const DEFAULT_CLUSTER = '_default';

/** `k8s:<apiVersion>:<kind>:<namespace>:<name>` (5 parts) or `k8s:<apiVersion>:<kind>:<name>`. */
export function parseRuntimeQuery(query: string): RuntimeObjectRef {
  const parts = query.split(':');
  if (parts[0] !== 'k8s') throw new RuntimeError('runtime query', [{ message: `query "${query}" must start with "k8s:"` }]);
  if (parts.length < 4) throw new RuntimeError('runtime query', [{ message: `query "${query}" needs k8s:<apiVersion>:<kind>:[<namespace>:]<name>` }]);
  if (parts.length === 5) return { apiVersion: parts[1], kind: parts[2], namespace: parts[3], name: parts[4] };
  // Timoni reads 4 and quirkily 6+ parts as cluster-scoped, name = part 3.
  return { apiVersion: parts[1], kind: parts[2], name: parts[3] };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 (padded) decoded as text, or undefined when `s` is not base64. Line breaks are skipped, as Go's decoder does. */
export function decodeBase64(s: string): string | undefined {
  const t = s.replace(/[\r\n]/g, '');
  if (!BASE64.test(t)) return undefined;
  return Buffer.from(t, 'base64').toString('utf8');
}

/** Reads every query of the runtime against one cluster. */
export async function readRuntimeValues(cue: CueEngine, runtime: RuntimeDefinition, reader: RuntimeObjectReader, options: TenantOptions = {}): Promise<RuntimeValues> {
  const out: RuntimeValues = {};
  for (const q of runtime.values) {
    const ref = parseRuntimeQuery(q.query);
    let obj: KubeObject | null;
    try {
      obj = await reader.get(ref);
    } catch (err) {
      throw new RuntimeError(`runtime ${runtime.name}`, [{ message: `query ${q.query}: ${(err as Error).message}` }], { cause: err });
    }
    if (obj === null) {
      if (q.optional) continue;
      throw new RuntimeError(`runtime ${runtime.name}`, [{ message: `query ${q.query}: object not found` }]);
    }
    const secret = obj.apiVersion === 'v1' && obj.kind === 'Secret';
    for (const [key, expression] of q.for) {
      let value: string;
      try {
        const res = await cue.evalExpression({ expression, bindings: { obj } }, { tenant: options.tenant });
        if (res.kind === 'struct' || res.kind === 'list') {
          throw new RuntimeError(`runtime ${runtime.name}`, [{ message: `query ${q.query}: ${key}: "${expression}" gives a ${res.kind}, want a string, number or bool` }]);
        }
        value = res.string ?? res.cue;
      } catch (err) {
        if (!(err instanceof CueEvaluationError)) throw err;
        throw new RuntimeError(`runtime ${runtime.name}`, [{ message: `query ${q.query}: ${key}: ${err.message}` }], { cause: err });
      }
      out[key] = secret ? (decodeBase64(value) ?? value) : value;
    }
  }
  return out;
}

/** Values set by `runtime.timoni.sh/<NAME>` annotations; cluster/group map to TIMONI_CLUSTER_*. */
export function annotationValues(annotations: Record<string, string> = {}): RuntimeValues {
  const out: RuntimeValues = {};
  for (const [k, v] of Object.entries(annotations)) {
    if (!k.startsWith(ANNOTATION_PREFIX)) continue;
    if (k === CLUSTER_ANNOTATION) out[CLUSTER_NAME_VAR] = v;
    else if (k === GROUP_ANNOTATION) out[CLUSTER_GROUP_VAR] = v;
    else out[k.slice(ANNOTATION_PREFIX.length)] = v;
  }
  return out;
}

/** The cluster identity from the Project annotations, when they name one. */
export function clusterFromAnnotations(annotations: Record<string, string> = {}): ClusterIdentity | undefined {
  const name = annotations[CLUSTER_ANNOTATION];
  return name ? { name, group: annotations[GROUP_ANNOTATION] ?? '' } : undefined;
}

/**
 * Picks the runtime's cluster entry for the target (§4.4, case-insensitive).
 * A runtime without clusters targets every cluster; one that lists clusters
 * but not this one is an error, as `no cluster found` is in Timoni.
 */
export function selectCluster(runtime: RuntimeDefinition, cluster: ClusterIdentity | undefined): ClusterIdentity | undefined {
  if (runtime.clusters.length === 0 || !cluster) return cluster;
  const hit = runtime.clusters.find((c) => c.name.toLowerCase() === cluster.name.toLowerCase());
  if (!hit) throw new RuntimeError(`runtime ${runtime.name}`, [{ file: runtime.files[0], message: `no cluster found named "${cluster.name}"` }]);
  return { name: hit.name, group: cluster.group || hit.group };
}

export interface ResolveRuntimeRequest {
  /** Absent: no runtime files (the RFC's annotation-only mode). */
  runtime?: RuntimeDefinition;
  reader?: RuntimeObjectReader;
  /** The target cluster; absent or `_default` injects no TIMONI_CLUSTER_* values. */
  cluster?: ClusterIdentity;
  /** The Project's annotations (`runtime.timoni.sh/*`). */
  annotations?: Record<string, string>;
  /** libs/cue tenant of the `for` expressions. */
  tenant?: string;
}

/**
 * The value map for attribute injection, lowest to highest precedence:
 * annotation values, values read from the cluster, then the cluster name
 * and group (from the identity, else from the annotations).
 */
export async function resolveRuntimeValues(cue: CueEngine, req: ResolveRuntimeRequest): Promise<RuntimeValues> {
  const fromAnnotations = annotationValues(req.annotations);
  let cluster = req.cluster ?? clusterFromAnnotations(req.annotations);
  let read: RuntimeValues = {};
  if (req.runtime) {
    cluster = selectCluster(req.runtime, cluster);
    if (req.runtime.values.length > 0) {
      if (!req.reader) throw new RuntimeError(`runtime ${req.runtime.name}`, [{ message: 'runtime queries need a cluster reader' }]);
      read = await readRuntimeValues(cue, req.runtime, req.reader, { tenant: req.tenant });
    }
  }
  const out: RuntimeValues = { ...fromAnnotations, ...read };
  if (cluster && cluster.name !== DEFAULT_CLUSTER) {
    out[CLUSTER_NAME_VAR] = cluster.name;
    out[CLUSTER_GROUP_VAR] = cluster.group;
  }
  return out;
}
