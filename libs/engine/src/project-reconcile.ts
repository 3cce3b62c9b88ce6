// The reconcile of one Project on one cluster (ARCHITECTURE "The path of one
// reconcile"). The outer function never throws: it turns errors into the
// result and calls runFinished in `finally`. The inner one is a straight
// line of named steps, each throwing its typed error.
import { checkProjectPolicy } from './tenant-policy';
import { isNotFound, type ResourceManager } from '@flotilla/kube';
import { RegistryClient } from '@flotilla/oci';
import type { RegistryClients } from './registry-clients';
import { reconcileComponent } from './component-reconcile';
import { checkDag, runDag } from './dag-run';
import {
  ClusterUnreachableError, DependencyNotReadyError, EngineError, ProjectLoadError, RunAbortedError, UnexpectedRunError, messageOf,
} from './errors';
import { listProjectInstances, pruneInstance } from './instance-prune';
import { normalizeKubeVersion } from './kube-version';
import { defaultReconcileOptions, type ReconcileOptions } from './options';
import { instanceKey, ownedBy, planPrune } from './prune-plan';
import { callHook, emptyRunResult, namespaceSet, tenantManager } from './run-result';
import { resolveRegistryCredentials } from './registry-credentials';
import { resolveTag, type SourceCache } from './source-fetch';
import { checkServiceAccount } from './service-account-check';
import type {
  ComponentResult, CredentialsStore, GeneratorTarget, InstanceResult, ManifestGenerator, ProjectPlan, ReconcileHooks,
  ReconcileInput, RunContext, RunResult, RuntimeObjectReader, SourceFiles,
} from './types';

export interface ReconcileDeps {
  generator: ManifestGenerator;
  /** the target cluster with the caller's own identity (hub: the cluster's credentials; agent: its service account) */
  manager: ResourceManager;
  /** artifacts by digest, shared across runs */
  sources: SourceCache;
  credentials?: CredentialsStore;
  /** registry clients shared by runs with equal credentials (tokens, module trees); one client per run when absent */
  registries?: RegistryClients;
  hooks?: ReconcileHooks;
  options?: Partial<ReconcileOptions>;
}

/** `tag@sha256:…` */
export function formatRevision(tag: string, digest: string): string {
  return `${tag}@${digest}`;
}

/** The digest of a `tag@sha256:…` revision; undefined when there is none. */
export function revisionDigest(revision: string | null | undefined): string | undefined {
  const at = revision?.lastIndexOf('@') ?? -1;
  return at >= 0 ? revision!.slice(at + 1) : undefined;
}

export async function reconcileProject(input: ReconcileInput, deps: ReconcileDeps): Promise<RunResult> {
  const options = { ...defaultReconcileOptions(), ...deps.options };
  const t0 = performance.now();
  const result = emptyRunResult(input, options.clock());
  // What earlier runs knew, until this run's prune step knows better.
  result.namespaces = namespaceSet(input.knownNamespaces ?? []);
  try {
    await reconcileSteps(input, deps, options, result);
  } catch (err) {
    result.error = err instanceof EngineError ? err : input.signal?.aborted ? new RunAbortedError(`run aborted: ${messageOf(err)}`, { cause: err }) : wrapUnknown(err);
  } finally {
    result.error ??= firstComponentError(result);
    result.ok = !result.error && result.components.every((c) => c.status === 'Succeeded') && result.pruned.every((p) => !p.error);
    result.finishedAt = options.clock();
    result.durationMs = Math.round(performance.now() - t0);
    await callHook(result, () => deps.hooks?.runFinished?.(result));
  }
  return result;
}

async function reconcileSteps(input: ReconcileInput, deps: ReconcileDeps, options: ReconcileOptions, result: RunResult): Promise<void> {
  const { project } = input;
  const context: RunContext = { project, cluster: result.cluster, source: result.source };
  const run = tenantManager(deps.manager, project, options, input.signal);

  // tenant policy → service account → credentials → resolve → fetch → load
  checkProjectPolicy(project);
  const serviceAccount = options.impersonate ? await checkServiceAccount(input.signal ? deps.manager.withSignal(input.signal).client : deps.manager.client, project, input.cluster.name) : undefined;
  const credentials = await resolveRegistryCredentials(project, deps.credentials, deps.manager.client, serviceAccount);
  const registry = deps.registries ? deps.registries.get(credentials) : new RegistryClient({ ...options.registry, credentials: credentials.source });
  const digest = input.digest ?? (await timed(result, 'resolveMs', () => resolveTag(registry, project.source.repository, project.source.tag, { signal: input.signal })));
  result.digest = digest;
  result.revision = formatRevision(project.source.tag, digest);
  context.revision = result.revision;
  const files = await timed(result, 'fetchMs', () => deps.sources.fetch(registry, project.source.repository, digest, { signal: input.signal }));
  // runaway CUE of one Project must not starve the others' evaluations (libs/cue's fair pool)
  const tenant = `${project.namespace}/${project.name}`;
  const plan = await timed(result, 'loadMs', () => loadPlan(deps.generator, files, project.source.path, tenant));
  const kubeVersion = await clusterVersion(run, input.cluster.kubeVersion);

  // components, in dependency order
  const target: GeneratorTarget = {
    cluster: { name: input.cluster.name, group: input.cluster.group },
    annotations: project.annotations,
    reader: runtimeReader(run),
    kubeVersion,
  };
  const t0 = performance.now();
  const outcomes = await runDag(
    plan.components,
    async (name) => {
      const component = plan.components.find((c) => c.name === name)!;
      const res = await reconcileComponent({
        generator: deps.generator,
        manager: run,
        project,
        owner: input.owner,
        request: { files, project: plan, component, target, registry, tenant },
        options,
        signal: input.signal,
        onInstance: (instance: InstanceResult) => callHook(result, () => deps.hooks?.instanceApplied?.({ context, instance })),
        // the wait goes on while the hook runs; a slow or failing hook only delays or loses the progress note
        onWaiting: (instance, objects, timeoutMs) => void callHook(result, () => deps.hooks?.instanceWaiting?.({ context, component: name, instance, objects, timeoutMs })),
      });
      await callHook(result, () => deps.hooks?.componentFinished?.({ context, component: res }));
      return res;
    },
    { concurrency: options.concurrency, succeeded: (r) => r.status === 'Succeeded' },
  );
  result.components = plan.components.map((c): ComponentResult => {
    const o = outcomes.get(c.name)!;
    if (o.status !== 'skipped') return o.value!;
    const skipped: ComponentResult = { name: c.name, status: 'Skipped', instances: [], durationMs: 0, error: new DependencyNotReadyError(c.name, o.blockedBy) };
    return skipped;
  });
  for (const c of result.components) {
    if (c.status === 'Skipped') await callHook(result, () => deps.hooks?.componentFinished?.({ context, component: c }));
  }
  result.timings.componentsMs = Math.round(performance.now() - t0);

  // prune instances that left a component or the project
  if (input.signal?.aborted) throw new RunAbortedError(`run aborted before pruning: ${messageOf(input.signal.reason)}`, { cause: input.signal.reason });
  await timed(result, 'pruneMs', () => pruneStep(input, run, options, result, context, deps.hooks));
}

async function pruneStep(input: ReconcileInput, manager: ResourceManager, options: ReconcileOptions, result: RunResult, context: RunContext, hooks?: ReconcileHooks) {
  const desiredNs = result.components.flatMap((c) => (c.instanceNames ?? []).map((i) => i.namespace));
  const search = namespaceSet(desiredNs, input.knownNamespaces ?? [], [input.project.namespace]);
  // Until the listing succeeds, every namespace searched may still hold instances.
  result.namespaces = search;
  const { own: stored, foreign } = ownedBy(await listProjectInstances(manager, input.project, search), input.owner);
  for (const f of foreign) result.warnings.push(`instance ${instanceKey(f)} is owned by ${f.owner}, not ${input.owner}: not pruned`);
  const doomed = planPrune(stored, result.components);
  for (const inst of doomed) {
    const pruned = await pruneInstance(manager, inst, options.pruneTimeoutMs, input.signal);
    result.pruned.push(pruned);
    await callHook(result, () => hooks?.instancePruned?.({ context, instance: pruned }));
  }
  const gone = new Set(result.pruned.filter((p) => !p.error).map(instanceKey));
  const remaining = stored.filter((s) => !gone.has(instanceKey(s))).map((s) => s.namespace);
  result.namespaces = namespaceSet(desiredNs, remaining);
}

export async function loadPlan(generator: ManifestGenerator, files: SourceFiles, path: string, tenant: string): Promise<ProjectPlan> {
  try {
    const plan = await generator.loadProject(files, path, tenant);
    checkDag(plan.components);
    return plan;
  } catch (err) {
    throw new ProjectLoadError(path, { cause: err });
  }
}

export async function clusterVersion(manager: ResourceManager, known?: string): Promise<string> {
  if (known) {
    try {
      return normalizeKubeVersion(known);
    } catch {
      // a recorded version we cannot read: ask the server instead
    }
  }
  try {
    return normalizeKubeVersion(await manager.serverVersion());
  } catch (err) {
    throw new ClusterUnreachableError(`cluster API server: ${messageOf(err)}`, { cause: err });
  }
}

/** `k8s:` queries as the service account; a missing object is null. */
export function runtimeReader(manager: ResourceManager): RuntimeObjectReader {
  const reader = manager.reader();
  return {
    get: async (ref) => {
      try {
        return await reader.get(ref);
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },
  };
}

async function timed<T>(result: RunResult, key: keyof RunResult['timings'], step: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await step();
  } finally {
    result.timings[key] = Math.round(performance.now() - t0);
  }
}

function firstComponentError(result: RunResult): EngineError | undefined {
  return result.components.find((c) => c.status === 'Failed')?.error ?? result.pruned.find((p) => p.error)?.error;
}

function wrapUnknown(err: unknown): EngineError {
  return new UnexpectedRunError(`unexpected: ${messageOf(err)}`, { cause: err });
}
