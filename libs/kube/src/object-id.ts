import { InvalidObjectError } from './errors';
import type { KubeObject, ObjectRef, VersionedObjectRef } from './types';

/** Splits `group/version` (or core `v1`) into its parts. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return { group: '', version: apiVersion };
  return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export function formatApiVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** The versioned identity of an object; throws when apiVersion, kind or name is missing. */
export function objectRef(obj: KubeObject): VersionedObjectRef {
  if (!obj || typeof obj !== 'object') throw new InvalidObjectError('object is not a JSON object', '<unknown>');
  const name = obj.metadata?.name;
  if (!obj.apiVersion || !obj.kind || !name) {
    throw new InvalidObjectError(
      'object needs apiVersion, kind and metadata.name',
      `${obj.kind ?? '<no kind>'}/${name ?? '<no name>'}`,
    );
  }
  const { group, version } = parseApiVersion(obj.apiVersion);
  return { group, version, kind: obj.kind, namespace: obj.metadata.namespace ?? '', name };
}

/** `Kind/namespace/name` or `Kind/name` (the subject Flux and Timoni print). */
export function formatSubject(ref: ObjectRef): string {
  return ref.namespace ? `${ref.kind}/${ref.namespace}/${ref.name}` : `${ref.kind}/${ref.name}`;
}

/** Stable key for maps: group, kind, namespace, name (version ignored, as in the inventory). */
export function refKey(ref: ObjectRef): string {
  return `${ref.namespace}_${ref.name}_${ref.group}_${ref.kind}`;
}

/**
 * Timoni/cli-utils inventory entry id `<namespace>_<name>_<group>_<kind>`; `:` in names
 * (RBAC objects such as `system:foo`) is written as `__` so the id splits on `_` cleanly.
 */
export function inventoryEntryId(ref: ObjectRef): string {
  return `${ref.namespace}_${ref.name.replace(/:/g, '__')}_${ref.group}_${ref.kind}`;
}

/**
 * Parses an inventory id back into a reference. Namespaces, groups and kinds contain no `_`;
 * names may hold `__` (an escaped `:`), so the name is everything between the first and the
 * last two separators.
 */
export function parseInventoryEntryId(id: string): ObjectRef {
  const parts = id.split('_');
  if (parts.length < 4) throw new InvalidObjectError(`inventory id "${id}" does not have the form <namespace>_<name>_<group>_<kind>`, id);
  const namespace = parts[0];
  const kind = parts[parts.length - 1];
  const group = parts[parts.length - 2];
  const name = parts.slice(1, parts.length - 2).join('_').replace(/__/g, ':');
  if (!name || !kind) throw new InvalidObjectError(`inventory id "${id}" has an empty name or kind`, id);
  return { namespace, name, group, kind };
}

export function sameRef(a: ObjectRef, b: ObjectRef): boolean {
  return a.group === b.group && a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;
}
