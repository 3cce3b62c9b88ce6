// The Timoni instance record (§5.5) kept as JSON in the state Secret, field for field.
import { InventoryError } from './errors';
import { inventoryEntryId, parseInventoryEntryId } from './object-id';
import type { ObjectRef, VersionedObjectRef } from './types';

export const INSTANCE_KIND = 'Instance';
export const INSTANCE_API_VERSION = 'timoni.sh/v1alpha1';

export interface ModuleReference {
  /** module name, e.g. `timoni.sh/podinfo` */
  name: string;
  /** `oci://<host>/<repo>` */
  repository: string;
  version: string;
  /** `sha256:<hex>` */
  digest: string;
  annotations?: Record<string, string>;
}

export interface InventoryEntry {
  /** `<namespace>_<name>_<group>_<kind>` */
  id: string;
  /** version of the kind without its group, e.g. `v1` for `apps/v1` */
  v: string;
}

export interface InstanceRecord {
  kind: typeof INSTANCE_KIND;
  apiVersion: typeof INSTANCE_API_VERSION;
  metadata: {
    name: string;
    namespace: string;
    creationTimestamp?: string | null;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  module: ModuleReference;
  /** CUE text of the merged values (always present, as in Timoni) */
  values: string;
  /** UTC RFC3339 time of the last inventory change */
  lastTransitionTime?: string;
  inventory?: { entries: InventoryEntry[] };
  images?: string[];
}

export interface InstanceRecordInput {
  name: string;
  namespace: string;
  labels?: Record<string, string>;
  module: ModuleReference;
  values: string;
  /** objects in apply order (§5.2) */
  objects: ReadonlyArray<VersionedObjectRef>;
  images?: string[];
  /** defaults to now */
  lastTransitionTime?: Date;
}

/** RFC3339 without fractional seconds, as Go's time.RFC3339 prints UTC times. */
export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function inventoryEntries(objects: ReadonlyArray<VersionedObjectRef>): InventoryEntry[] {
  // Timoni stores only the version part (`v1` for apps/v1 too): the group is in the id
  return objects.map((o) => ({ id: inventoryEntryId(o), v: o.version }));
}

/** Builds a record with Timoni's key order (kind, apiVersion, metadata, module, values, …). */
export function buildInstanceRecord(input: InstanceRecordInput): InstanceRecord {
  const metadata: InstanceRecord['metadata'] = { name: input.name, namespace: input.namespace };
  if (input.labels && Object.keys(input.labels).length) metadata.labels = { ...input.labels };
  const module: ModuleReference = {
    name: input.module.name,
    repository: input.module.repository,
    version: input.module.version,
    digest: input.module.digest,
  };
  if (input.module.annotations && Object.keys(input.module.annotations).length) module.annotations = { ...input.module.annotations };
  const record: InstanceRecord = {
    kind: INSTANCE_KIND,
    apiVersion: INSTANCE_API_VERSION,
    metadata,
    module,
    values: input.values,
    lastTransitionTime: rfc3339(input.lastTransitionTime ?? new Date()),
    inventory: { entries: inventoryEntries(input.objects) },
  };
  if (input.images && input.images.length) record.images = [...input.images];
  return record;
}

export function encodeInstanceRecord(record: InstanceRecord): string {
  return JSON.stringify(record);
}

/** Parses `data.instance` (or `data.pending`) JSON; `where` names the Secret for errors. */
export function decodeInstanceRecord(json: string, where: string): InstanceRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new InventoryError(`${where}: instance record is not valid JSON`, { cause: err });
  }
  const r = parsed as Partial<InstanceRecord>;
  if (!r || typeof r !== 'object' || r.kind !== INSTANCE_KIND || r.apiVersion !== INSTANCE_API_VERSION) {
    throw new InventoryError(`${where}: instance record must have kind ${INSTANCE_KIND} and apiVersion ${INSTANCE_API_VERSION}`);
  }
  if (!r.metadata?.name || !r.module) throw new InventoryError(`${where}: instance record lacks metadata.name or module`);
  for (const e of r.inventory?.entries ?? []) {
    if (typeof e?.id !== 'string' || typeof e?.v !== 'string') throw new InventoryError(`${where}: inventory entry ${JSON.stringify(e)} needs string id and v`);
  }
  return r as InstanceRecord;
}

/** The inventory of a record as versioned references, in stored (apply) order. */
export function recordObjects(record: InstanceRecord | undefined): VersionedObjectRef[] {
  return (record?.inventory?.entries ?? []).map((e) => {
    const ref = parseInventoryEntryId(e.id);
    const slash = e.v.indexOf('/');
    return { ...ref, version: slash < 0 ? e.v : e.v.slice(slash + 1) };
  });
}

/** Objects in `previous` that are not in `current` (by group/kind/namespace/name): the prune set. */
export function staleObjects(previous: ReadonlyArray<VersionedObjectRef>, current: ReadonlyArray<ObjectRef>): VersionedObjectRef[] {
  const keep = new Set(current.map((c) => inventoryEntryId(c)));
  const seen = new Set<string>();
  return previous.filter((p) => {
    const id = inventoryEntryId(p);
    if (keep.has(id) || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Whether two records hold the same inventory ids (order-insensitive). */
export function sameInventory(a: InstanceRecord | undefined, b: InstanceRecord | undefined): boolean {
  const ids = (r?: InstanceRecord) => new Set((r?.inventory?.entries ?? []).map((e) => e.id));
  const x = ids(a);
  const y = ids(b);
  return x.size === y.size && [...x].every((id) => y.has(id));
}

