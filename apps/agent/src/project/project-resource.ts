// The Project custom resource (projects.timoni.sh/v1alpha1) as the agent reads
// and writes it: names of the API, the annotations and finalizer the agent
// honours, and the shapes of spec and status.
import type { KubeObject } from '@flotilla/kube';
import type { SinkHeaderRef } from '../events/cdevents-outbox-store';

export const PROJECT_GROUP = 'projects.timoni.sh';
export const PROJECT_VERSION = 'v1alpha1';
export const PROJECT_API_VERSION = `${PROJECT_GROUP}/${PROJECT_VERSION}`;
export const PROJECT_KIND = 'Project';
export const PROJECT_PLURAL = 'projects';

/** Any new value asks for a reconcile now; the value handled last is echoed in status.lastHandledReconcileAt. */
export const RECONCILE_REQUESTED_ANNOTATION = 'reconcile.timoni.sh/requestedAt';
/** `"true"` suspends reconciliation (nothing is applied, pruned or polled); removing it or `"false"` resumes. */
export const SUSPEND_ANNOTATION = 'reconcile.timoni.sh/suspend';
/** `Delete` (default): deleting the Project deletes its instances; `Orphan`: they stay in the cluster. */
export const DELETION_POLICY_ANNOTATION = 'reconcile.timoni.sh/deletionPolicy';
/** Annotations with this prefix become runtime values of the Project's bundles. */
export const RUNTIME_ANNOTATION_PREFIX = 'runtime.timoni.sh/';

/** Set by the agent on Projects a hub assigned: the digest the hub chose; the tag is then never polled. */
export const HUB_DIGEST_ANNOTATION = 'hub.flotilla.dev/digest';
/** The hub's Target and assignment generation a hub-managed Project serves: its reports name them. */
export const HUB_TARGET_ANNOTATION = 'hub.flotilla.dev/target';
export const HUB_GENERATION_ANNOTATION = 'hub.flotilla.dev/generation';
/** The Project's interval on the hub, in seconds: the agent runs a hub-managed Project at it (it is the Target's one clock). */
export const HUB_INTERVAL_ANNOTATION = 'hub.flotilla.dev/interval-seconds';
/**
 * The Project's tenant limits as the hub sent them (JSON: tenant, namespaces,
 * serviceAccounts): the engine refuses runs beyond them. Unreadable: nothing is allowed.
 */
export const HUB_TENANT_POLICY_ANNOTATION = 'hub.flotilla.dev/tenant-policy';
/** `app.kubernetes.io/managed-by` value of Projects the hub assigned. */
export const HUB_MANAGED_BY = 'flotilla-hub';

/** Held on every Project until its instances are deleted (or orphaned). */
export const PROJECT_FINALIZER = 'finalizers.timoni.sh';

export const DEFAULT_TAG = 'latest';
export const DEFAULT_PATH = 'project.cue';

export interface ProjectResourceSpec {
  serviceAccountName?: string;
  source: { repository: string; tag?: string; path?: string };
  /** where the agent sends the Project's CDEvents; the header's value comes from a Secret in the Project's namespace */
  cdevents?: { sink?: string; header?: SinkHeaderRef };
}

export interface ProjectCondition {
  type: 'Ready' | 'Reconciling' | 'Stalled' | 'Healthy';
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface ProjectInstanceStatus {
  name: string;
  namespace: string;
  module?: { name: string; version: string; digest?: string };
  ready: boolean;
  /** objects the last apply left in the cluster */
  objects: number;
  error?: string;
}

export interface ProjectComponentStatus {
  name: string;
  /** Succeeded, Failed, Skipped or Pending, as the engine reports it */
  status: string;
  instances: ProjectInstanceStatus[];
  error?: string;
}

export interface ProjectResourceStatus {
  observedGeneration?: number;
  conditions?: ProjectCondition[];
  /** `tag@sha256:…` of the last revision applied with success */
  lastAppliedRevision?: string;
  /** revisions applied with success before lastAppliedRevision, newest first (a few): applying one again is a rollback */
  appliedRevisions?: string[];
  /** `tag@sha256:…` of the last revision tried */
  lastAttemptedRevision?: string;
  /** the RECONCILE_REQUESTED_ANNOTATION value handled last */
  lastHandledReconcileAt?: string;
  components?: ProjectComponentStatus[];
  /** namespaces that held instances after the last run (where prune and delete look) */
  namespaces?: string[];
  /** RFC 3339: when the agent runs the Project next (interval or retry backoff) */
  nextReconcileAt?: string;
  /** consecutive failed runs */
  failures?: number;
}

export interface ProjectResource extends KubeObject {
  apiVersion: typeof PROJECT_API_VERSION;
  kind: typeof PROJECT_KIND;
  spec: ProjectResourceSpec;
  status?: ProjectResourceStatus;
}

/** `namespace/name`, the work-queue key of a Project. */
export function projectKey(obj: { metadata: { namespace?: string; name: string } }): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
}
