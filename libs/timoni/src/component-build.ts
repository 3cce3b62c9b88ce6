// One component for one cluster: runtime values, bundle with injection,
// then every instance's module fetched and built (cached by input hash).
import type { CueEngine, FileTree } from '@flotilla/cue';
import { loadBundle } from './bundle-load';
import { TimoniError, TimoniValidationError, formatIssue, type TimoniIssue } from './errors';
import type { ModuleBuilder } from './module-builder';
import type { ModuleFetcher } from './module-fetch';
import { loadRuntime } from './runtime-load';
import { resolveRuntimeValues } from './runtime-values';
import type { Bundle, ClusterIdentity, InstanceBuild, ProjectComponent, RuntimeObjectReader, RuntimeValues } from './types';

export interface ClusterTarget {
  /** Name and group from the fleet inventory; else taken from the annotations. */
  cluster?: ClusterIdentity;
  /** The Project's annotations (`runtime.timoni.sh/*`). */
  annotations?: Record<string, string>;
  /** Reads live objects for `k8s:` queries. */
  reader?: RuntimeObjectReader;
  /** API server version without `v`. */
  kubeVersion?: string;
}

export interface ComponentBuild {
  component: string;
  bundle: Bundle;
  runtimeValues: RuntimeValues;
  /** In bundle order. */
  instances: InstanceBuild[];
}

export class ComponentBuilder {
  constructor(
    private readonly cue: CueEngine,
    private readonly fetcher: ModuleFetcher,
    private readonly builder: ModuleBuilder,
  ) {}

  async runtimeValues(files: FileTree, component: ProjectComponent, target: ClusterTarget): Promise<RuntimeValues> {
    const runtime = component.runtime.length > 0 ? await loadRuntime(this.cue, files, component.runtime) : undefined;
    return resolveRuntimeValues(this.cue, { runtime, reader: target.reader, cluster: target.cluster, annotations: target.annotations });
  }

  bundle(files: FileTree, component: ProjectComponent, values: RuntimeValues): Promise<Bundle> {
    return loadBundle(this.cue, { files, paths: component.bundle, values });
  }

  async instance(files: FileTree, bundle: Bundle, index: number, kubeVersion?: string): Promise<InstanceBuild> {
    const inst = bundle.instances[index];
    const module = await this.fetcher.fetch(inst.module, { tree: files, baseDir: inst.baseDir });
    return this.builder.build({
      instance: inst.name,
      namespace: inst.namespace,
      module,
      values: [{ path: `bundle-${bundle.name}-${inst.name}.values.json`, content: `{"values":${inst.values}}` }],
      kubeVersion,
    });
  }

  /** Builds every instance; the first error stops the component. */
  async build(files: FileTree, component: ProjectComponent, target: ClusterTarget): Promise<ComponentBuild> {
    const runtimeValues = await this.runtimeValues(files, component, target);
    const bundle = await this.bundle(files, component, runtimeValues);
    const instances: InstanceBuild[] = [];
    for (let i = 0; i < bundle.instances.length; i++) instances.push(await this.instance(files, bundle, i, target.kubeVersion));
    return { component: component.name, bundle, runtimeValues, instances };
  }
}

/** The positioned problems of any error, each labelled with `subject`. */
export function issuesOf(err: unknown, subject: string): TimoniIssue[] {
  if (err instanceof TimoniValidationError) return err.issues.map((i) => ({ ...i, subject: i.subject ? `${subject}: ${i.subject}` : subject }));
  if (err instanceof TimoniError || err instanceof Error) return [{ subject, message: err.message }];
  return [{ subject, message: String(err) }];
}

export { formatIssue };
