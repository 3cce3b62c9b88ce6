import type { FileTree } from '@flotilla/cue';

/** A Kubernetes object as rendered by a module or read from a cluster. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

// ---- project.cue (Project RFC) ----

export interface ProjectComponent {
  name: string;
  /** Tree paths (normalised, relative to the tree root) of the bundle files, in order. */
  bundle: string[];
  runtime: string[];
  needs: string[];
  wait: boolean;
  /** As written, e.g. `5m`. */
  timeout?: string;
  timeoutMs?: number;
}

export interface Project {
  apiVersion: string;
  name: string;
  /** Tree path of the project file. */
  file: string;
  /** In CUE field order. */
  components: ProjectComponent[];
}

export interface ExecutionPlan {
  /** Every component, dependencies first; declaration order among equals. */
  order: string[];
  /** Components that may run in parallel, group after group. */
  groups: string[][];
}

// ---- bundles (§3) ----

export interface BundleModuleRef {
  url: string;
  version: string;
  digest?: string;
}

export interface BundleInstance {
  name: string;
  namespace: string;
  module: BundleModuleRef;
  /** The instance's `values` as JSON text, keys in CUE field order. */
  values: string;
  /** Tree path of the directory `file://` URLs resolve against. */
  baseDir: string;
}

export interface Bundle {
  apiVersion: string;
  name: string;
  /** In CUE field order. */
  instances: BundleInstance[];
  files: string[];
  /** Runtime names the attributes read, with the value each took (undefined: default kept). */
  injected: Record<string, string | undefined>;
}

/** Values for `@timoni(runtime:TYPE:NAME)`, by NAME. */
export type RuntimeValues = Record<string, string>;

/**
 * Whose work the CUE calls are: libs/cue queues them under this tenant
 * (the hub: the Project's `namespace/name`), so runaway CUE of one Project
 * cannot starve the others. Never part of a cache key.
 */
export interface TenantOptions {
  tenant?: string;
}

// ---- runtimes (§4) ----

export interface RuntimeCluster {
  name: string;
  group: string;
  kubeContext: string;
}

export interface RuntimeQuery {
  query: string;
  /** KEY → CUE expression over `obj`, in field order. */
  for: Array<[string, string]>;
  optional: boolean;
}

export interface RuntimeDefinition {
  name: string;
  /** In CUE field order; empty means the single default cluster. */
  clusters: RuntimeCluster[];
  values: RuntimeQuery[];
  files: string[];
}

/** `k8s:` reference as parsed from a query. */
export interface RuntimeObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/**
 * Reads one live object for runtime queries (libs/kube implements it over
 * discovery). Resolves null when the object does not exist; any other
 * failure rejects.
 */
export interface RuntimeObjectReader {
  get(ref: RuntimeObjectRef): Promise<KubeObject | null>;
}

/** The target cluster as the fleet inventory or the Project annotations name it. */
export interface ClusterIdentity {
  name: string;
  group: string;
}

// ---- modules (§2) ----

export interface ModuleReference {
  /** `module` of cue.mod/module.cue, e.g. `timoni.sh/podinfo`. */
  name: string;
  /** `oci://host/repo`, or `file://<path>` for local modules. */
  repository: string;
  /** Version annotation; `0.0.0-devel` for local modules. */
  version: string;
  /** Manifest digest; `unknown` for local modules. */
  digest: string;
}

/** A module ready to build: its files and where they came from. */
export interface LoadedModule {
  tree: FileTree;
  ref: ModuleReference;
  /** sha256 of the tree content (paths and bytes). */
  treeHash: string;
}

export interface ApplyStep {
  name: string;
  objects: KubeObject[];
}

export interface HealthCheckTarget {
  /** Field name under `timoni.healthChecks`. */
  name: string;
  group: string;
  /** Absent: every kind of the group. */
  kind?: string;
}

/** What a health check evaluation needs again at wait time. */
export interface BuildContext {
  tree: FileTree;
  dir: string;
  package: string;
  tags: Record<string, string>;
  tagVars: Record<string, string>;
}

/** The result of building one instance. */
export interface InstanceBuild {
  instance: string;
  namespace: string;
  module: ModuleReference;
  /** CUE text of the merged values as Timoni stores them in the instance state: evaluated, no hidden fields. */
  values: string;
  /** Apply steps in CUE field order, objects labelled with the instance. */
  steps: ApplyStep[];
  /** Image references from `timoni.instance.config`, sorted. */
  images: string[];
  healthChecks: HealthCheckTarget[];
  kubeVersion: string;
  moduleVersion: string;
  /** Hash of the build inputs; equal keys render equal objects. */
  key: string;
  /** Shared, read-only: for health check evaluation. */
  context: BuildContext;
}

/** The HealthResult shape libs/kube consumes. */
export type HealthStatus = 'Unknown' | 'InProgress' | 'Failed' | 'Terminating' | 'NotFound' | 'Current';
export interface HealthResult {
  status: HealthStatus;
  message: string;
}

/** libs/kube's HealthCheckEvaluator: undefined when no check targets the object's group/kind. */
export interface HealthCheckEvaluator {
  evaluate(obj: KubeObject): Promise<HealthResult | undefined>;
}
