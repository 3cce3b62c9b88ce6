// Prepares rendered objects for apply: instance labels stamped, namespace dropped from
// cluster-scoped kinds (scope from discovery, or from a CRD in the same set not yet applied).
import { INSTANCE_NAME_LABEL, INSTANCE_NAMESPACE_LABEL } from './constants';
import { InvalidObjectError, UnknownKindError } from './errors';
import type { ObjectClient } from './object-client';
import { formatSubject, objectRef, parseApiVersion } from './object-id';
import type { KubeObject } from './types';

export interface InstanceIdentity {
  name: string;
  namespace: string;
}

/** Sets `instance.timoni.sh/name|namespace` on a copy of each object (overwriting). */
export function stampInstanceLabels(objects: readonly KubeObject[], instance: InstanceIdentity): KubeObject[] {
  return objects.map((o) => {
    const copy = structuredClone(o);
    copy.metadata.labels = { ...(copy.metadata.labels ?? {}), [INSTANCE_NAME_LABEL]: instance.name, [INSTANCE_NAMESPACE_LABEL]: instance.namespace };
    return copy;
  });
}

/** Scope of kinds declared by CRDs in this set: `group/Kind` → namespaced. */
export function crdScopes(objects: readonly KubeObject[]): Map<string, boolean> {
  const scopes = new Map<string, boolean>();
  for (const o of objects) {
    if (o.kind !== 'CustomResourceDefinition' || parseApiVersion(o.apiVersion).group !== 'apiextensions.k8s.io') continue;
    const spec = o.spec as { group?: string; scope?: string; names?: { kind?: string } } | undefined;
    if (spec?.group && spec.names?.kind) scopes.set(`${spec.group}/${spec.names.kind}`, spec.scope !== 'Cluster');
  }
  return scopes;
}

/**
 * Copies of the objects with `metadata.namespace` removed where the kind is cluster-scoped;
 * namespaced objects without a namespace are rejected before anything is applied.
 */
export async function normalizeNamespaces(client: ObjectClient, objects: readonly KubeObject[]): Promise<KubeObject[]> {
  const fromSet = crdScopes(objects);
  const out: KubeObject[] = [];
  for (const o of objects) {
    const ref = objectRef(o); // throws on missing apiVersion, kind or name
    let namespaced: boolean;
    try {
      namespaced = (await client.resourceOf(o.apiVersion, o.kind)).namespaced;
    } catch (err) {
      const declared = fromSet.get(`${parseApiVersion(o.apiVersion).group}/${o.kind}`);
      if (!(err instanceof UnknownKindError) || declared === undefined) throw err;
      namespaced = declared;
    }
    if (namespaced && !o.metadata.namespace) {
      throw new InvalidObjectError(`${o.kind} is namespaced: set metadata.namespace`, formatSubject(ref));
    }
    const copy = structuredClone(o);
    if (!namespaced) delete copy.metadata.namespace;
    out.push(copy);
  }
  return out;
}
