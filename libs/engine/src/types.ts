import type { TenantPolicy } from './tenant-policy';
// Shapes of libs/engine: what a reconcile takes, the seams it calls, and the
// results it returns as data (the hub and the agent turn them into status,
// Run rows, events and metrics).
import type { ChangeSetEntry, HealthCheckEvaluator, KubeObject } from '@flotilla/kube';
import type { RegistryClient } from '@flotilla/oci';
import type { EngineError } from './errors';

/** Files of an extracted artifact, by slash-separated path relative to its root. */
export type SourceFiles = Record<string, string | Uint8Array>;

// ---- inputs ----

/** Registry credentials a Project carries (decrypted by the caller's store). */
export type ProjectRegistryCredentials =
  | { kind: 'basic'; username: string; password: string }
  /** A registry bearer token (Timoni `--creds` without a colon). */
  | { kind: 'token'; token: string }
  /** `config.json` / `kubernetes.io/dockerconfigjson` content, matched per registry host. */
  | { kind: 'dockerconfigjson'; config: string };

export interface ProjectSpec {
  name: string;
  /** Where the service account lives; also a label on every inventory Secret. */
  namespace: string;
  source: {
    /** `oci://host/repo` */
    repository: string;
    /** default `latest` */
    tag: string;
    /** project file in the artifact, default `project.cue` */
    path: string;
  };
  /** impersonated for every cluster operation; its image pull secrets are the fallback registry credentials */
  serviceAccountName: string;
  /** `runtime.timoni.sh/*` annotations become runtime values */
  annotations: Record<string, string>;
  /** take over instances another Project, owner or bundle holds (Timoni's --overwrite-ownership); default false */
  overwriteOwnership?: boolean;
  /** its tenant's limits; absent: none (a cluster's own Projects) */
  policy?: TenantPolicy;
}

/** The target cluster as the inventory names it. */
export interface ClusterTarget {
  name: string;
  group: string;
  /** API server version (`1.36.3` or `v1.36.3`); read from /version when absent. */
  kubeVersion?: string;
}

export interface ReconcileInput {
  project: ProjectSpec;
  cluster: ClusterTarget;
  /** Digest the caller already resolved for `source.tag` (one resolution per repository+tag per poll). */
  digest?: string;
  /**
   * Namespaces that held instances of this Project after earlier runs
   * (`RunResult.namespaces`); searched for instances to prune when the
   * service account may not list Secrets cluster-wide.
   */
  knownNamespaces?: string[];
  /**
   * Recorded on every instance as its owner label (the hub's cluster
   * registration, or the agent); prune and delete touch only instances of
   * this owner (or none recorded). Absent: every instance of the Project.
   */
  owner?: string;
  /** Aborts the whole run (hub shutdown, lease lost). */
  signal?: AbortSignal;
}

// ---- seams ----

/** Registry credentials of a Project (the hub decrypts them from its store); undefined when it has none. */
export interface CredentialsStore {
  registryCredentials(project: ProjectSpec): Promise<ProjectRegistryCredentials | undefined>;
}

/** Reads one live object; null when it does not exist. */
export interface RuntimeObjectReader {
  get(ref: { apiVersion: string; kind: string; namespace?: string; name: string }): Promise<KubeObject | null>;
}

export interface PlannedComponent {
  name: string;
  needs: string[];
  wait: boolean;
  /** the component's `timeout`; the engine default applies when absent */
  timeoutMs?: number;
}

export interface ProjectPlan {
  /** `project.name` of project.cue */
  name: string;
  /** in declaration order */
  components: PlannedComponent[];
}

export interface GeneratorTarget {
  cluster: { name: string; group: string };
  annotations: Record<string, string>;
  /** impersonating the Project's service account */
  reader: RuntimeObjectReader;
  /** without `v` */
  kubeVersion: string;
}

export interface ComponentRequest {
  files: SourceFiles;
  project: ProjectPlan;
  component: PlannedComponent;
  target: GeneratorTarget;
  /** carries the Project's credentials, for modules */
  registry: RegistryClient;
  signal: AbortSignal;
  /** `namespace/name` of the Project: its CUE evaluations share the engine's pool fairly with other Projects' */
  tenant?: string;
}

export interface BundlePlan {
  name: string;
  /** in bundle order; applied one by one in this order */
  instances: Array<{ name: string; namespace: string }>;
  /** what the generator needs again to build an instance */
  data?: unknown;
}

export interface ModuleInfo {
  name: string;
  /** `oci://host/repo` */
  repository: string;
  version: string;
  digest: string;
}

export interface BuiltInstance {
  name: string;
  namespace: string;
  module: ModuleInfo;
  /** CUE text of the merged values (stored in the inventory Secret) */
  values: string;
  images: string[];
  steps: Array<{ name: string; objects: KubeObject[] }>;
  /** module health checks, when the module has any */
  healthCheck?: HealthCheckEvaluator;
}

/**
 * Timoni semantics behind a narrow seam (the GitOps engine's manifest
 * generator): libs/timoni implements it for real runs; specs use in-memory ones.
 */
export interface ManifestGenerator {
  /** project.cue → components with needs/wait/timeout; invalid input throws. */
  /** `tenant`: whose evaluation it is, for the CUE pool's fair share. */
  loadProject(files: SourceFiles, path: string, tenant?: string): Promise<ProjectPlan>;
  /** Values for `@timoni(runtime:…)`: annotations, cluster identity, `k8s:` queries. */
  runtimeValues(req: ComponentRequest): Promise<Record<string, string>>;
  /** The component's bundle with the runtime values injected. */
  bundle(req: ComponentRequest, values: Record<string, string>): Promise<BundlePlan>;
  /** Fetches the instance's module and builds it. */
  buildInstance(req: ComponentRequest, bundle: BundlePlan, instance: string): Promise<BuiltInstance>;
}

// ---- results ----

export interface ChangeCounts {
  created: number;
  configured: number;
  unchanged: number;
  deleted: number;
  skipped: number;
}

export interface InstanceResult {
  name: string;
  namespace: string;
  component: string;
  bundle: string;
  module?: ModuleInfo;
  /** applied objects of every step, then objects pruned from the instance */
  changes: ChangeSetEntry[];
  counts: ChangeCounts;
  /** applied and healthy: waited for with `wait`, else checked once right after the apply */
  ready: boolean;
  /** objects not healthy when checked right after an apply without `wait`: `Kind/namespace/name Status: message` */
  notReady?: string[];
  durationMs: number;
  error?: EngineError;
}

export type ComponentStatus = 'Succeeded' | 'Failed' | 'Skipped';

export interface ComponentResult {
  name: string;
  status: ComponentStatus;
  bundle?: string;
  /** every instance of the bundle once known, in bundle order */
  instanceNames?: Array<{ name: string; namespace: string }>;
  instances: InstanceResult[];
  startedAt?: Date;
  durationMs: number;
  /** Failed: why; Skipped: DependencyNotReadyError naming the failed needs */
  error?: EngineError;
}

/** A whole instance deleted because it left its component or the project. */
export interface PrunedInstance {
  name: string;
  namespace: string;
  /** the component it was labelled with */
  component: string;
  changes: ChangeSetEntry[];
  counts: ChangeCounts;
  durationMs?: number;
  error?: EngineError;
}

export interface RunTimings {
  resolveMs: number;
  fetchMs: number;
  loadMs: number;
  componentsMs: number;
  pruneMs: number;
}

export interface RunResult {
  project: { name: string; namespace: string };
  cluster: { name: string; group: string };
  /** `oci://host/repo` */
  source: string;
  tag: string;
  digest?: string;
  /** `tag@sha256:…`, once the digest is known */
  revision?: string;
  ok: boolean;
  startedAt: Date;
  finishedAt: Date;
  durationMs: number;
  timings: RunTimings;
  /** in plan order; empty when the run failed before planning */
  components: ComponentResult[];
  pruned: PrunedInstance[];
  /** instance namespaces of this run plus those still holding instances (pass back as `knownNamespaces`) */
  namespaces: string[];
  /** the first error, run-level or of a component (plan order) */
  error?: EngineError;
  /** hooks that threw (ignored otherwise) */
  warnings: string[];
}

// ---- hooks ----

export interface RunContext {
  project: ProjectSpec;
  cluster: { name: string; group: string };
  /** `oci://host/repo` */
  source: string;
  revision?: string;
}

export interface InstanceAppliedEvent {
  context: RunContext;
  instance: InstanceResult;
}

export interface InstancePrunedEvent {
  context: RunContext;
  instance: PrunedInstance;
}

export interface ComponentFinishedEvent {
  context: RunContext;
  component: ComponentResult;
}

export interface InstanceWaitingEvent {
  context: RunContext;
  component: string;
  instance: { name: string; namespace: string };
  /** `Kind/namespace/name` of the objects waited for */
  objects: string[];
  /** how long the component may still take */
  timeoutMs: number;
}

/** Called as the run goes; awaited; errors are caught and reported as warnings. */
export interface ReconcileHooks {
  /** a component with `wait` starts waiting for an instance's objects to become healthy; not awaited by the wait */
  instanceWaiting?(event: InstanceWaitingEvent): void | Promise<void>;
  instanceApplied?(event: InstanceAppliedEvent): void | Promise<void>;
  instancePruned?(event: InstancePrunedEvent): void | Promise<void>;
  componentFinished?(event: ComponentFinishedEvent): void | Promise<void>;
  runFinished?(result: RunResult): void | Promise<void>;
}
