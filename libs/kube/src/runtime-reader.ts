// Runtime queries (`k8s:` references, §4.2): read one object of any kind through discovery.
import { RuntimeRefError } from './errors';
import type { ObjectAddress, ObjectClient } from './object-client';
import type { KubeObject } from './types';

/** What libs/timoni consumes: GET by reference; a missing object throws NotFoundError (see isNotFound). */
export interface KubeObjectReader {
  get(ref: ObjectAddress): Promise<KubeObject>;
}

/** Adapts an ObjectClient (possibly impersonating) to the reader interface. */
export function objectReader(client: ObjectClient): KubeObjectReader {
  return { get: (ref) => client.get(ref) };
}

/**
 * Parses `k8s:<apiVersion>:<kind>:<namespace>:<name>` (5 parts) or `k8s:<apiVersion>:<kind>:<name>`
 * (4 parts, cluster-scoped; Timoni also reads 6+ parts this way, name = part 3).
 * apiVersion with a group is written `group/version`, which holds no `:`.
 */
export function parseRuntimeRef(query: string): ObjectAddress {
  const parts = query.split(':');
  if (parts[0] !== 'k8s') throw new RuntimeRefError(`runtime query "${query}" must start with "k8s:"`);
  if (parts.length < 4) throw new RuntimeRefError(`runtime query "${query}" needs k8s:<apiVersion>:<kind>:[<namespace>:]<name>`);
  if (parts.length === 5) return { apiVersion: parts[1], kind: parts[2], namespace: parts[3], name: parts[4] };
  return { apiVersion: parts[1], kind: parts[2], name: parts[3] };
}
