// What a reconcile of one Project on one cluster would change, without
// changing anything: the reconcile's own steps (credentials, resolve, fetch,
// load, runtime values, bundle, build) up to the apply, which becomes a
// server-side dry run, and the prune plan, which becomes a list. Shares its
// steps with project-reconcile so a diff shows what the next run will do.
import { changeSetEntry, objectRef, recordObjects, sortForApply, staleObjects, type KubeObject, type ResourceManager, type VersionedObjectRef } from '@flotilla/kube';
import { RegistryClient } from '@flotilla/oci';
import { EngineError, messageOf, UnexpectedRunError } from './errors';
import { listProjectInstances } from './instance-prune';
import { defaultReconcileOptions, type ReconcileOptions } from './options';
import { instanceKey, ownedBy, planPrune } from './prune-plan';
import { clusterVersion, formatRevision, loadPlan, runtimeReader } from './project-reconcile';
import type { RegistryClients } from './registry-clients';
import { resolveRegistryCredentials } from './registry-credentials';
import { namespaceSet, tenantManager } from './run-result';
import { resolveTag, type SourceCache } from './source-fetch';
import { checkInstancesPolicy, checkProjectPolicy } from './tenant-policy';
import type { ComponentRequest, ComponentResult, CredentialsStore, GeneratorTarget, ManifestGenerator, ReconcileInput, SourceFiles } from './types';

export type DiffAction = 'created' | 'changed' | 'pruned';

export interface DiffObject {
  /** `Kind/namespace/name` (`Kind/name` when cluster-scoped) */
  subject: string;
  /** `namespace/name` of the instance it belongs to */
  instance: string;
  component: string;
  action: DiffAction;
  /** unified diff, Secret values masked; empty for pruned objects */
  diff: string;
}

export interface ProjectDiff {
  /** `tag@sha256:…`, or `upload` for an artifact given as files */
  revision: string;
  objects: DiffObject[];
  unchanged: number;
  /** components that could not be rendered or dry-run, with why */
  errors: Array<{ component: string; message: string }>;
}

export interface DiffInput extends Omit<ReconcileInput, 'digest'> {
  /** the artifact at this digest instead of what `source.tag` points at */
  digest?: string;
  /** an artifact's files given by the caller (an upload), instead of the registry's */
  files?: SourceFiles;
}

export interface DiffDeps {
  generator: ManifestGenerator;
  manager: ResourceManager;
  sources: SourceCache;
  credentials?: CredentialsStore;
  registries?: RegistryClients;
  options?: Partial<ReconcileOptions>;
}

/** Throws an EngineError when the artifact cannot be resolved, fetched or loaded; a component's failure is in `errors`. */
export async function diffProject(input: DiffInput, deps: DiffDeps): Promise<ProjectDiff> {
  try {
    return await diffSteps(input, deps, { ...defaultReconcileOptions(), ...deps.options });
  } catch (err) {
    throw err instanceof EngineError ? err : new UnexpectedRunError(`diff: ${messageOf(err)}`, { cause: err });
  }
}

async function diffSteps(input: DiffInput, deps: DiffDeps, options: ReconcileOptions): Promise<ProjectDiff> {
  const { project, signal } = input;
  // the tenant's policy holds for a dry run as for a run: nothing outside it is read
  checkProjectPolicy(project);
  const run = tenantManager(deps.manager, project, options, signal);
  const credentials = await resolveRegistryCredentials(project, deps.credentials, deps.manager.client);
  const registry = deps.registries ? deps.registries.get(credentials) : new RegistryClient({ ...options.registry, credentials: credentials.source });
  let files = input.files;
  let revision = 'upload';
  if (!files) {
    const digest = input.digest ?? (await resolveTag(registry, project.source.repository, project.source.tag, { signal }));
    revision = input.digest ?? formatRevision(project.source.tag, digest);
    files = await deps.sources.fetch(registry, project.source.repository, digest, { signal });
  }
  const tenant = `${project.namespace}/${project.name}`;
  const plan = await loadPlan(deps.generator, files, project.source.path, tenant);
  const target: GeneratorTarget = {
    cluster: { name: input.cluster.name, group: input.cluster.group },
    annotations: project.annotations,
    reader: runtimeReader(run),
    kubeVersion: await clusterVersion(run, input.cluster.kubeVersion),
  };

  const out: ProjectDiff = { revision, objects: [], unchanged: 0, errors: [] };
  // Shaped as a run's component results, so the prune plan is the reconcile's own.
  const components: ComponentResult[] = [];
  for (const component of plan.components) {
    const request: ComponentRequest = { files, project: plan, component, target, registry, tenant, signal: signal ?? new AbortController().signal };
    const result: ComponentResult = { name: component.name, status: 'Failed', instances: [], durationMs: 0 };
    components.push(result);
    try {
      const values = await deps.generator.runtimeValues(request);
      const bundle = await deps.generator.bundle(request, values);
      checkInstancesPolicy(project, component.name, bundle.instances);
      result.instanceNames = bundle.instances.map((i) => ({ name: i.name, namespace: i.namespace }));
      for (const inst of bundle.instances) {
        const built = await deps.generator.buildInstance(request, bundle, inst.name);
        await diffInstance(run, component.name, built.namespace, built.name, built.steps.flatMap((s) => s.objects), out);
      }
      result.status = 'Succeeded';
    } catch (err) {
      out.errors.push({ component: component.name, message: causeChain(err) });
    }
  }

  const search = namespaceSet(components.flatMap((c) => (c.instanceNames ?? []).map((i) => i.namespace)), input.knownNamespaces ?? [], [project.namespace]);
  const { own } = ownedBy(await listProjectInstances(run, project, search), input.owner);
  for (const doomed of planPrune(own, components)) {
    const stored = await run.storage.read(doomed.namespace, doomed.name);
    const refs = [...recordObjects(stored?.record), ...recordObjects(stored?.pending)];
    for (const ref of unique(refs)) out.objects.push(pruned(ref, instanceKey(doomed), doomed.component));
  }
  return out;
}

async function diffInstance(manager: ResourceManager, component: string, namespace: string, name: string, rendered: KubeObject[], out: ProjectDiff): Promise<void> {
  const instance = `${namespace}/${name}`;
  const objects = sortForApply(await manager.prepare(rendered, { name, namespace }));
  for (const entry of await manager.diff(objects)) {
    if (entry.action === 'unchanged') out.unchanged++;
    else out.objects.push({ subject: entry.subject, instance, component, action: entry.action === 'created' ? 'created' : 'changed', diff: entry.unified });
  }
  const stored = await manager.storage.read(namespace, name);
  const previous = [...recordObjects(stored?.record), ...recordObjects(stored?.pending)];
  for (const ref of unique(staleObjects(previous, objects.map(objectRef)))) out.objects.push(pruned(ref, instance, component));
}

function pruned(ref: VersionedObjectRef, instance: string, component: string): DiffObject {
  return { subject: changeSetEntry(ref, 'deleted').subject, instance, component, action: 'pruned', diff: '' };
}

function unique(refs: VersionedObjectRef[]): VersionedObjectRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = changeSetEntry(r, 'deleted').subject;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/** The error and its causes, one sentence: build errors keep their file:line. */
function causeChain(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e !== undefined && parts.length < 5; e = e instanceof Error ? e.cause : undefined) {
    const text = messageOf(e);
    if (!parts.some((p) => p.includes(text))) parts.push(text);
  }
  return parts.join(': ');
}
