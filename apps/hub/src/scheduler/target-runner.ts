// The seam between the scheduler and the reconcile engine: run one Target
// (one Project on one cluster) and say what happened, as data. libs/engine's
// reconcileProject implements it for real runs; specs use in-process runners.
import type { ClusterConnection } from '../kube/kubeconfig';

/** Injection token of the TargetRunner the scheduler uses. */
export const TARGET_RUNNER = Symbol('TARGET_RUNNER');

/** Decrypted registry credentials of a Project. */
export type RegistryCredentials = { kind: 'basic'; username: string; password: string } | { kind: 'dockerconfigjson'; config: string };

export interface TargetRunProject {
  name: string;
  namespace: string;
  source: { repository: string; tag: string; path: string };
  serviceAccountName: string;
  annotations: Record<string, string>;
  generation: number;
}

/** One Kubernetes API request made by the run (for metrics). */
export interface KubeRequestEvent {
  method: string;
  /** low-cardinality path with names replaced by placeholders */
  pathTemplate: string;
  /** 0 when no response arrived */
  statusCode: number;
  durationMs: number;
}

export interface TargetRunInput {
  project: TargetRunProject;
  cluster: { name: string; group: string; serverVersion: string | null };
  /** null for agent clusters (not run by the hub) or a push cluster without stored credentials */
  connection: ClusterConnection | null;
  registryCredentials?: RegistryCredentials;
  /** the digest to apply (`sha256:…`), already resolved by the poller (or pinned by a rollout gate) */
  digest: string;
  /** namespaces that held instances after the previous run */
  knownNamespaces: string[];
  /** aborted when the hub shuts down or the lease is lost */
  signal: AbortSignal;
  /** every API request the run makes is reported here */
  onKubeRequest: (event: KubeRequestEvent) => void;
}

export interface ChangeCounts {
  created: number;
  configured: number;
  unchanged: number;
  deleted: number;
}

/** One instance applied (or deleted) by a run. */
export interface InstanceOutcome extends ChangeCounts {
  name: string;
  namespace: string;
  component: string;
  action: 'applied' | 'pruned' | 'deleted';
  module?: { name: string; version: string };
  ready: boolean;
  durationMs: number;
  /** object ids applied, `Kind/namespace/name` */
  objects?: string[];
  error?: string;
}

export interface RunError {
  message: string;
  /** PascalCase, e.g. ArtifactFetchFailed */
  reason: string;
  /** false: retrying cannot help until the source or spec changes (stall) */
  retryable: boolean;
}

export interface TargetRunResult {
  ok: boolean;
  /** `tag@sha256:…` */
  revision: string;
  instances: InstanceOutcome[];
  /** components and their instances, as the Target status shows them */
  components: unknown[];
  namespaces: string[];
  error?: RunError;
}

export interface TargetRunHooks {
  /** called after each instance apply, prune or deletion; awaited */
  instanceApplied(instance: InstanceOutcome): Promise<void>;
}

export interface TargetRunner {
  /** Applies the Project at `digest` on the cluster and prunes what left it. */
  reconcile(input: TargetRunInput, hooks: TargetRunHooks): Promise<TargetRunResult>;
  /** Deletes every instance of the Project from the cluster (Project deletion with instances=delete). */
  deleteInstances(input: Omit<TargetRunInput, 'digest'> & { digest: string | null }, hooks: TargetRunHooks): Promise<TargetRunResult>;
  /** Frees what the runner holds (CUE workers); called once at hub shutdown, after the last run. */
  close?(): Promise<void>;
}
