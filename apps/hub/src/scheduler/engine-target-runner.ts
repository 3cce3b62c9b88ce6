// The TargetRunner the hub uses in production: libs/engine's reconcileProject
// against the cluster's own connection (push mode). Everything here only
// translates between the scheduler's port and the engine's shapes.
import { CueEngine } from '@flotilla/cue';
import {
  instanceKubeEvent,
  listProjectInstances,
  pruneInstance,
  reconcileProject,
  RegistryClients,
  runStatus,
  SourceCache,
  summarizeComponents,
  TimoniManifestGenerator,
  type InstanceAppliedEvent,
  type InstancePrunedEvent,
  type InstanceResult,
  type ManifestGenerator,
  type PrunedInstance,
  type ProjectRegistryCredentials,
  type ProjectSpec,
  type ReconcileOptions,
  type RunResult,
} from '@flotilla/engine';
import { type ClusterConnection as KubeConnection, ResourceManager, serviceAccountImpersonation, type KubeObject } from '@flotilla/kube';
import { BlobCache, defaultBlobCacheOptions } from '@flotilla/oci';
import { join } from 'node:path';
import type { ClusterConnection } from '../kube/kubeconfig';
import { openKubeConnection } from './push-connection';
import type { InstanceOutcome, TargetRunHooks, TargetRunInput, TargetRunner, TargetRunResult } from './target-runner';

export interface EngineRunnerOptions {
  /** on-disk blob cache of artifacts and modules (under the hub's data dir) */
  cacheDir: string;
  /** limit for deleting each instance when a Project is deleted */
  deleteTimeoutMs: number;
  /** record each instance event as a core/v1 Event in the cluster too */
  kubeEvents: boolean;
  reconcile: Partial<ReconcileOptions>;
}

export function defaultEngineRunnerOptions(dataDir: string): EngineRunnerOptions {
  return { cacheDir: join(dataDir, 'cache'), deleteTimeoutMs: 5 * 60_000, kubeEvents: true, reconcile: {} };
}

interface Shared {
  generator: ManifestGenerator;
  sources: SourceCache;
  registries: RegistryClients;
  close(): Promise<void>;
}

export class EngineTargetRunner implements TargetRunner {
  private shared: Promise<Shared> | undefined;

  /** `shared` lets tests and benchmarks pass their own generator; by default the CUE engine starts at the first run. */
  constructor(
    private readonly options: EngineRunnerOptions,
    shared?: Shared,
  ) {
    if (shared) this.shared = Promise.resolve(shared);
  }

  async reconcile(input: TargetRunInput, hooks: TargetRunHooks): Promise<TargetRunResult> {
    const revision = `${input.project.source.tag}@${input.digest}`;
    if (!input.connection) return noConnection(revision, input.cluster.name);
    const shared = await this.start();
    const conn = connect(input);
    const manager = new ResourceManager(conn);
    const posted: Promise<unknown>[] = [];
    const record = (event: InstanceAppliedEvent | InstancePrunedEvent) => {
      if (this.options.kubeEvents) posted.push(postEvent(manager, instanceKubeEvent(event, new Date())));
    };
    try {
      const result = await reconcileProject(
        {
          project: spec(input),
          cluster: { name: input.cluster.name, group: input.cluster.group, kubeVersion: input.cluster.serverVersion ?? undefined },
          digest: input.digest,
          knownNamespaces: input.knownNamespaces,
          signal: input.signal,
        },
        {
          generator: shared.generator,
          manager,
          sources: shared.sources,
          registries: shared.registries,
          credentials: { registryCredentials: async () => engineCredentials(input) },
          options: this.options.reconcile,
          hooks: {
            instanceApplied: async (e) => {
              record(e);
              await hooks.instanceApplied(appliedOutcome(e.instance));
            },
            instancePruned: async (e) => {
              record(e);
              await hooks.instanceApplied(prunedOutcome(e.instance, 'pruned'));
            },
          },
        },
      );
      await Promise.allSettled(posted);
      return fromRunResult(result, revision);
    } finally {
      await conn.close();
    }
  }

  /** Lists the Project's instances by their labels and deletes each (as the Project's service account). */
  async deleteInstances(input: Omit<TargetRunInput, 'digest'> & { digest: string | null }, hooks: TargetRunHooks): Promise<TargetRunResult> {
    const revision = input.digest ? `${input.project.source.tag}@${input.digest}` : input.project.source.tag;
    if (!input.connection) return noConnection(revision, input.cluster.name);
    const conn = connect(input);
    try {
      const manager = new ResourceManager(conn).impersonate(serviceAccountImpersonation(input.project.namespace, input.project.serviceAccountName));
      const project = spec(input);
      const outcomes: InstanceOutcome[] = [];
      let firstError: string | undefined;
      try {
        for (const instance of await listProjectInstances(manager, project, input.knownNamespaces)) {
          const pruned = await pruneInstance(manager, instance, this.options.deleteTimeoutMs, input.signal);
          const outcome = prunedOutcome(pruned, 'deleted');
          outcomes.push(outcome);
          await hooks.instanceApplied(outcome);
          firstError ??= outcome.error;
        }
      } catch (err) {
        firstError ??= err instanceof Error ? err.message : String(err);
      }
      return {
        ok: firstError === undefined,
        revision,
        instances: outcomes,
        components: [],
        namespaces: [],
        ...(firstError !== undefined ? { error: { reason: 'PruneFailed', message: firstError, retryable: true } } : {}),
      };
    } finally {
      await conn.close();
    }
  }

  async close(): Promise<void> {
    const shared = await this.shared?.catch(() => undefined);
    await shared?.close();
  }

  private start(): Promise<Shared> {
    this.shared ??= (async () => {
      const cue = await CueEngine.start();
      const blobCache = new BlobCache(defaultBlobCacheOptions(this.options.cacheDir));
      return {
        generator: new TimoniManifestGenerator(cue, { blobCache }),
        sources: new SourceCache({ blobCache }),
        registries: new RegistryClients(),
        close: () => cue.close(),
      };
    })();
    // a failed start is retried by the next run
    this.shared.catch(() => (this.shared = undefined));
    return this.shared;
  }
}

function spec(input: Pick<TargetRunInput, 'project'>): ProjectSpec {
  const p = input.project;
  return { name: p.name, namespace: p.namespace, source: p.source, serviceAccountName: p.serviceAccountName, annotations: p.annotations };
}

function connect(input: Pick<TargetRunInput, 'onKubeRequest'> & { connection: ClusterConnection | null }): KubeConnection {
  return openKubeConnection(input.connection!, input.onKubeRequest);
}

function engineCredentials(input: Pick<TargetRunInput, 'registryCredentials'>): ProjectRegistryCredentials | undefined {
  const c = input.registryCredentials;
  if (!c) return undefined;
  return c.kind === 'basic' ? { kind: 'basic', username: c.username, password: c.password } : { kind: 'dockerconfigjson', config: c.config };
}

/** Best effort: an event the cluster refuses must not fail the run. */
async function postEvent(manager: ResourceManager, event: KubeObject): Promise<void> {
  await manager.client.apply(event, { dryRun: false, force: true, fieldManager: 'flotilla' }).catch(() => undefined);
}

function objectIds(changes: InstanceResult['changes']): string[] {
  return changes.map((c) => c.subject);
}

function appliedOutcome(i: InstanceResult): InstanceOutcome {
  return {
    name: i.name,
    namespace: i.namespace,
    component: i.component,
    action: 'applied',
    ...(i.module ? { module: { name: i.module.name, version: i.module.version } } : {}),
    ready: i.ready,
    durationMs: i.durationMs,
    created: i.counts.created,
    configured: i.counts.configured,
    unchanged: i.counts.unchanged,
    deleted: i.counts.deleted,
    objects: objectIds(i.changes),
    ...(i.error ? { error: i.error.message } : {}),
  };
}

function prunedOutcome(p: PrunedInstance, action: 'pruned' | 'deleted'): InstanceOutcome {
  return {
    name: p.name,
    namespace: p.namespace,
    component: p.component,
    action,
    ready: !p.error,
    durationMs: 0,
    created: p.counts.created,
    configured: p.counts.configured,
    unchanged: p.counts.unchanged,
    deleted: p.counts.deleted,
    objects: objectIds(p.changes),
    ...(p.error ? { error: p.error.message } : {}),
  };
}

/** The engine's decision (retry or stall) carries over as `retryable`. */
export function fromRunResult(result: RunResult, fallbackRevision: string): TargetRunResult {
  const status = runStatus(result, result.finishedAt);
  const instances = [
    ...result.components.flatMap((c) => c.instances.map(appliedOutcome)),
    ...result.pruned.map((p) => prunedOutcome(p, 'pruned')),
  ];
  return {
    ok: status.decision === 'done',
    revision: result.revision ?? fallbackRevision,
    instances,
    components: summarizeComponents(result),
    namespaces: result.namespaces,
    ...(status.decision === 'done' ? {} : { error: { reason: status.reason, message: status.message, retryable: status.decision === 'retry' } }),
  };
}

function noConnection(revision: string, cluster: string): TargetRunResult {
  return {
    ok: false,
    revision,
    instances: [],
    components: [],
    namespaces: [],
    error: { reason: 'ClusterUnreachable', message: `cluster ${cluster} has no stored endpoint or credentials for push mode`, retryable: false },
  };
}
