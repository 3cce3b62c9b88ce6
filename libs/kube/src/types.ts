// Shared shapes of libs/kube: objects as plain JSON, their identities, and results as data.

/** A Kubernetes object as JSON (unstructured). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resourceVersion?: string;
  generation?: number;
  uid?: string;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  managedFields?: ManagedFieldsEntry[];
  [field: string]: unknown;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update' | string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

/** Identity of one object: group, kind, namespace ('' when cluster-scoped) and name. */
export interface ObjectRef {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

/** An object reference that also names the API version (inventory entries, GETs). */
export interface VersionedObjectRef extends ObjectRef {
  version: string;
}

/** What apply, prune and delete did to one object. */
export type ChangeAction = 'created' | 'configured' | 'unchanged' | 'deleted' | 'skipped';

export interface ChangeSetEntry {
  ref: VersionedObjectRef;
  /** `Kind/namespace/name` or `Kind/name`, for logs and messages */
  subject: string;
  action: ChangeAction;
  /** why an object was skipped (one-off that exists, prune disabled, foreign labels, …) */
  reason?: string;
}

export interface ChangeSet {
  entries: ChangeSetEntry[];
}

/** kstatus-style health; `HEALTH_ORDER` in health.ts ranks them for aggregation. */
export type HealthStatus = 'Unknown' | 'InProgress' | 'Failed' | 'Terminating' | 'NotFound' | 'Current';

export interface HealthResult {
  status: HealthStatus;
  message: string;
}

/** Health of one object as reported by wait and status. */
export interface ObjectHealth {
  ref: VersionedObjectRef;
  subject: string;
  status: HealthStatus;
  message: string;
}
