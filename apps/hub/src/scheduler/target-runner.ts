// The seam between the scheduler and the reconcile engine: run one Target
// (one Project on one cluster) and return the engine's RunReport, which
// already holds the conditions and the retry decision. The engine adapter
// implements it for real runs; specs use in-process runners.
import type { BootstrapRole, ProjectDiff, ProjectRegistryCredentials, ProjectSpec, ReportContext, ReportInstance, RunReport, SourceFiles } from '@flotilla/engine';
import type { ClusterCredentials } from '@flotilla/kube';
import type { RunConnection } from './run-connection';

/** Injection token of the TargetRunner the scheduler uses. */
export const TARGET_RUNNER = Symbol('TARGET_RUNNER');

/** The engine's Project (its tenant's policy included), with what only the hub uses. */
export interface TargetRunProject extends ProjectSpec {
  overwriteOwnership: boolean;
  /** bootstrap the Project on the cluster with this role, or not at all */
  bootstrapRole: BootstrapRole | null;
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
  cluster: { name: string; group: string; serverVersion: string | null; mode: 'push' | 'agent' };
  /** the Target and the lease epoch of this run */
  target: { id: string; epoch: number };
  /** null for a cluster the hub cannot reach itself (agent mode, or no stored credentials) */
  connection: ClusterCredentials | null;
  /** `connection` already opened by the hub (shared with its event sink): the runner uses it and leaves closing it to the hub */
  kube?: RunConnection;
  registryCredentials?: ProjectRegistryCredentials;
  /** the digest to apply (`sha256:…`), resolved by the poller or pinned by a rollout gate; for deletion, the last applied one if known */
  digest: string | null;
  /** recorded on the instances; prune and delete touch only this owner's (the cluster registration) */
  owner: string;
  /** namespaces that held instances after the previous run */
  knownNamespaces: string[];
  /** attempt, interval, backoff and previous conditions: what the engine needs to decide what comes next */
  schedule: ReportContext;
  /** aborted when the hub shuts down or the lease is lost */
  signal: AbortSignal;
  /** every API request the run makes is reported here */
  onKubeRequest: (event: KubeRequestEvent) => void;
}

/** A dry run of one Target: the run's input without the schedule, and with an optional uploaded artifact. */
export interface TargetDiffInput extends Omit<TargetRunInput, 'schedule' | 'digest' | 'connection' | 'kube' | 'target'> {
  connection: ClusterCredentials;
  digest?: string;
  files?: SourceFiles;
}

export interface TargetRunHooks {
  /** called after each instance apply, prune or deletion; awaited */
  instanceApplied(instance: ReportInstance, revision: string | undefined): Promise<void>;
  /** a component with `wait` starts waiting for an instance's objects (`Kind/namespace/name`) */
  instanceWaiting?(component: string, instance: { name: string; namespace: string }, objects: string[], timeoutMs: number): Promise<void>;
}

export interface TargetRunner {
  /** Applies the Project at `digest` on the cluster and prunes what left it. Never throws. */
  reconcile(input: TargetRunInput & { digest: string }, hooks: TargetRunHooks): Promise<RunReport>;
  /** Deletes every instance of the Project this owner applied on the cluster. Never throws. */
  deleteInstances(input: TargetRunInput, hooks: TargetRunHooks): Promise<RunReport>;
  /**
   * What a reconcile at `digest` (or of `files`, or of the tag) would change, by server-side dry run;
   * applies nothing. Throws an EngineError when the artifact cannot be loaded. Push clusters only.
   */
  diff?(input: TargetDiffInput): Promise<ProjectDiff>;
  /** Frees what the runner holds (CUE workers); called once at hub shutdown, after the last run. */
  close?(): Promise<void>;
}
