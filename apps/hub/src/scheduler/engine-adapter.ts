// The TargetRunner the hub uses in production: libs/engine's runtime against
// the cluster's own connection (push mode). It only opens the connection,
// forwards hooks and returns the engine's report.
import {
  appliedInstance,
  applyBootstrap,
  BootstrapError,
  removeBootstrap,
  buildRunReport,
  ClusterUnreachableError,
  EngineRuntime,
  failedRunResult,
  removedInstance,
  type ProjectDiff,
  type ProjectSpec,
  type ReconcileHooks,
  type ReconcileOptions,
  type RunReport,
  type RunResult,
} from '@flotilla/engine';
import type { CueEngineOptions } from '@flotilla/cue';
import type { EgressPolicy } from '@flotilla/egress';
import { ResourceManager } from '@flotilla/kube';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { openKubeConnection } from './push-connection';
import type { TargetDiffInput, TargetRunHooks, TargetRunInput, TargetRunner } from './target-runner';

export interface EngineRunnerOptions {
  /** on-disk blob cache of artifacts and modules (under the hub's data dir) */
  cacheDir: string;
  /** limit for deleting each instance when a Project is deleted */
  deleteTimeoutMs: number;
  reconcile: Partial<ReconcileOptions>;
  /** the CUE pool: its size and per-worker memory, from the hub's configuration */
  cue: Partial<CueEngineOptions>;
  /** where API servers may be reached (the hub's egress policy) */
  egress: EgressPolicy;
  /** fetch of the registry clients (modules, artifacts, token realms): the hub's egress-checked one */
  registryFetch?: typeof fetch;
}

export function defaultEngineRunnerOptions(dataDir: string, egress: EgressPolicy, registryFetch?: typeof fetch, cue: Partial<CueEngineOptions> = {}): EngineRunnerOptions {
  return { cacheDir: join(dataDir, 'cache'), deleteTimeoutMs: 5 * 60_000, reconcile: {}, egress, registryFetch, cue };
}

export class EngineTargetRunner implements TargetRunner {
  private readonly runtime: EngineRuntime;

  /** `runtime` lets tests and benchmarks pass their own generator; by default the CUE engine starts at the first run. */
  constructor(private readonly options: EngineRunnerOptions, runtime?: EngineRuntime, logger?: Logger) {
    this.runtime =
      runtime ??
      EngineRuntime.create({
        cacheDir: options.cacheDir,
        cue: options.cue,
        reconcile: { ...options.reconcile, pruneTimeoutMs: options.deleteTimeoutMs },
        ...(options.registryFetch ? { registry: { fetch: options.registryFetch } } : {}),
        onCueStarted: (cue) => {
          const pool = { poolSize: options.cue.poolSize, workerMemoryMiB: options.cue.memoryLimitBytes && Math.round(options.cue.memoryLimitBytes / 1048576) };
          if (cue.fallbackReason) logger?.warn({ reason: cue.fallbackReason, ...pool }, 'CUE runs on WebAssembly, slower and larger: the native helper is unavailable');
          else logger?.info({ runtime: cue.runtime, startMs: Math.round(cue.startMs), ...pool }, 'CUE engine started');
        },
      });
  }

  reconcile(input: TargetRunInput & { digest: string }, hooks: TargetRunHooks): Promise<RunReport> {
    return this.withCluster(input, hooks, 'reconcile', async (manager, engineHooks) => {
      const role = input.project.bootstrapRole;
      if (role) {
        // with the cluster's own credentials, before the service account the run applies as is checked
        const failed = await applyBootstrap(manager.withSignal(input.signal).client, { project: spec(input), role, registryCredentials: input.registryCredentials }).then(
          () => undefined,
          (err: unknown) => failedRunResult({ project: spec(input), cluster: input.cluster }, asBootstrapError(err), new Date()),
        );
        if (failed) return failed;
      }
      return this.runtime.reconcile(
        {
          project: spec(input),
          cluster: { name: input.cluster.name, group: input.cluster.group, kubeVersion: input.cluster.serverVersion ?? undefined },
          digest: input.digest,
          owner: input.owner,
          knownNamespaces: input.knownNamespaces,
          signal: input.signal,
        },
        { manager, hooks: engineHooks, credentials: { registryCredentials: async () => input.registryCredentials } },
      );
    });
  }

  deleteInstances(input: TargetRunInput, hooks: TargetRunHooks): Promise<RunReport> {
    return this.withCluster(input, hooks, 'delete', async (manager, engineHooks) => {
      const result = await this.runtime.deleteProject(
        {
          project: spec(input),
          cluster: { name: input.cluster.name, group: input.cluster.group },
          digest: input.digest ?? undefined,
          owner: input.owner,
          knownNamespaces: input.knownNamespaces,
          signal: input.signal,
        },
        { manager, hooks: engineHooks },
      );
      const role = input.project.bootstrapRole;
      // what bootstrap made goes after the instances, which were deleted as its service account
      if (result.ok && role) {
        await removeBootstrap(manager.withSignal(input.signal).client, { project: spec(input), role }).catch((err: unknown) => {
          result.error = asBootstrapError(err);
          result.ok = false;
        });
      }
      return result;
    });
  }

  async diff(input: TargetDiffInput): Promise<ProjectDiff> {
    const conn = openKubeConnection(input.connection, this.options.egress, input.onKubeRequest);
    try {
      return await this.runtime.diff(
        {
          project: spec(input),
          cluster: { name: input.cluster.name, group: input.cluster.group, kubeVersion: input.cluster.serverVersion ?? undefined },
          digest: input.digest,
          files: input.files,
          owner: input.owner,
          knownNamespaces: input.knownNamespaces,
          signal: input.signal,
        },
        { manager: new ResourceManager(conn), credentials: { registryCredentials: async () => input.registryCredentials } },
      );
    } finally {
      await conn.close();
    }
  }

  close(): Promise<void> {
    return this.runtime.close();
  }

  private async withCluster(
    input: TargetRunInput,
    hooks: TargetRunHooks,
    kind: RunReport['kind'],
    run: (manager: ResourceManager, engineHooks: ReconcileHooks) => Promise<RunResult>,
  ): Promise<RunReport> {
    if (!input.connection) {
      const error = new ClusterUnreachableError(`cluster ${input.cluster.name} has no stored endpoint or credentials the hub can use`);
      return buildRunReport(failedRunResult({ project: spec(input), cluster: input.cluster }, error, new Date()), input.schedule, kind);
    }
    // the hub's own connection when it opened one (it closes it); otherwise this run's
    const conn = input.kube?.connection ?? openKubeConnection(input.connection, this.options.egress, input.onKubeRequest);
    const manager = new ResourceManager(conn, undefined, input.kube?.discovery);
    const removed = kind === 'delete' ? 'deleted' : 'pruned';
    try {
      const result = await run(manager, {
        instanceApplied: (e) => hooks.instanceApplied(appliedInstance(e.instance), e.context.revision),
        instancePruned: (e) => hooks.instanceApplied(removedInstance(e.instance, removed), e.context.revision),
        instanceWaiting: (e) => hooks.instanceWaiting?.(e.component, e.instance, e.objects, e.timeoutMs),
      });
      return buildRunReport(result, input.schedule, kind);
    } finally {
      if (!input.kube) await conn.close();
    }
  }
}

function asBootstrapError(err: unknown): BootstrapError {
  return err instanceof BootstrapError ? err : new BootstrapError(`bootstrap: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}

/** Everything of the engine's Project passes, so no field of ProjectSpec (the policy once) can be left behind. */
function spec(input: Pick<TargetRunInput, 'project'>): ProjectSpec {
  const { bootstrapRole: _bootstrapRole, generation: _generation, ...project } = input.project;
  return project;
}
