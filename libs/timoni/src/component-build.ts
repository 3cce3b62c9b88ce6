// One component for one cluster: runtime values, bundle with injection,
// then every instance's module fetched and built (cached by input hash).
import { createHash } from 'node:crypto';
import type { CueEngine, FileTree, ValuesOrigin } from '@flotilla/cue';
import { LruPromiseCache, type BuildCacheStats } from './build-cache';
import { BUNDLE_VALUES_FILE, hashTree } from './module-build';
import { parseRuntimeAttribute } from './runtime-attributes';
import { loadBundle } from './bundle-load';
import { TimoniError, TimoniValidationError, formatIssue, type TimoniIssue } from './errors';
import type { ModuleBuilder } from './module-builder';
import type { ModuleFetcher } from './module-fetch';
import { loadRuntime } from './runtime-load';
import { resolveRuntimeValues } from './runtime-values';
import type { Bundle, RuntimeDefinition, ClusterIdentity, InstanceBuild, ProjectComponent, RuntimeObjectReader, RuntimeValues, TenantOptions } from './types';

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

export interface ComponentBuilderOptions {
  /** Loaded bundles kept, keyed by source tree and the runtime values their attributes read. */
  bundleCacheCapacity: number;
}

export function defaultComponentBuilderOptions(): ComponentBuilderOptions {
  return { bundleCacheCapacity: 256 };
}

export class ComponentBuilder {
  private readonly bundles: LruPromiseCache<Bundle>;
  private readonly attributeNames: LruPromiseCache<string[]>;
  private readonly runtimes: LruPromiseCache<RuntimeDefinition>;
  private readonly treeHashes = new WeakMap<FileTree, string>();

  constructor(
    private readonly cue: CueEngine,
    private readonly fetcher: ModuleFetcher,
    private readonly builder: ModuleBuilder,
    options: Partial<ComponentBuilderOptions> = {},
  ) {
    const opts = { ...defaultComponentBuilderOptions(), ...options };
    this.bundles = new LruPromiseCache(opts.bundleCacheCapacity);
    this.attributeNames = new LruPromiseCache(opts.bundleCacheCapacity);
    this.runtimes = new LruPromiseCache(opts.bundleCacheCapacity);
  }

  /** Bundle loads and cache answers so far. */
  bundleStats(): BuildCacheStats {
    return this.bundles.stats();
  }

  // `options.tenant` goes to libs/cue with every call made here; the caches
  // are shared, so a load already made for another tenant is reused as is.
  async runtimeValues(files: FileTree, component: ProjectComponent, target: ClusterTarget, options: TenantOptions = {}): Promise<RuntimeValues> {
    // The definition does not depend on the cluster: loaded once per source.
    const runtime =
      component.runtime.length > 0
        ? structuredClone(
            await this.runtimes.getOrCreate(`${this.treeHash(files)}\0${component.runtime.join('\0')}`, () => loadRuntime(this.cue, files, component.runtime, options)),
          )
        : undefined;
    return resolveRuntimeValues(this.cue, { runtime, reader: target.reader, cluster: target.cluster, annotations: target.annotations, tenant: options.tenant });
  }

  /**
   * The component's bundle with the values injected. Clusters whose values
   * agree on every name the attributes read share one load.
   */
  async bundle(files: FileTree, component: ProjectComponent, values: RuntimeValues, options: TenantOptions = {}): Promise<Bundle> {
    const source = `${this.treeHash(files)}\0${component.bundle.join('\0')}`;
    const names = await this.attributeNames.getOrCreate(source, () => this.namesRead(files, component.bundle, options));
    const used = names.map((n) => [n, Object.prototype.hasOwnProperty.call(values, n) ? values[n] : null]);
    const key = createHash('sha256').update(source).update(JSON.stringify(used)).digest('hex');
    const bundle = await this.bundles.getOrCreate(key, () => loadBundle(this.cue, { files, paths: component.bundle, values, tenant: options.tenant }));
    return structuredClone(bundle);
  }

  private treeHash(files: FileTree): string {
    let hash = this.treeHashes.get(files);
    if (!hash) {
      hash = hashTree(files);
      this.treeHashes.set(files, hash);
    }
    return hash;
  }

  private async namesRead(files: FileTree, paths: readonly string[], options: TenantOptions): Promise<string[]> {
    const sources: FileTree = {};
    for (const p of paths) if (p.endsWith('.cue') && files[p] !== undefined) sources[p] = files[p];
    if (Object.keys(sources).length === 0) return [];
    const fields = await this.cue.listAttributes({ files: sources, name: 'timoni' }, { tenant: options.tenant });
    const names = new Set<string>();
    for (const f of fields) {
      const attr = parseRuntimeAttribute(f);
      if (attr) names.add(attr.name);
    }
    return [...names].sort();
  }

  async instance(files: FileTree, bundle: Bundle, index: number, kubeVersion?: string, options: TenantOptions = {}): Promise<InstanceBuild> {
    const inst = bundle.instances[index];
    const module = await this.fetcher.fetch(inst.module, { tree: files, baseDir: inst.baseDir }, options);
    return this.builder.build({
      instance: inst.name,
      namespace: inst.namespace,
      module,
      // One fixed name: the path is part of the build key, the bundle's name is not in the objects.
      values: [{ path: BUNDLE_VALUES_FILE, content: `{"values":${inst.values}}`, origin: bundleValuesOrigin(files, bundle, inst.name) }],
      kubeVersion,
      tenant: options.tenant,
    });
  }

  /** Builds every instance; the first error stops the component. */
  async build(files: FileTree, component: ProjectComponent, target: ClusterTarget, options: TenantOptions = {}): Promise<ComponentBuild> {
    const runtimeValues = await this.runtimeValues(files, component, target, options);
    const bundle = await this.bundle(files, component, runtimeValues, options);
    const instances: InstanceBuild[] = [];
    for (let i = 0; i < bundle.instances.length; i++) instances.push(await this.instance(files, bundle, i, target.kubeVersion, options));
    return { component: component.name, bundle, runtimeValues, instances };
  }
}

/**
 * Where an instance's values were written: the bundle files as the user has
 * them (before runtime values are injected, which may move lines), so a
 * value the module refuses is reported at its line in the bundle. Failed
 * builds are cached by their inputs, so another bundle with equal values
 * shares the first one's positions.
 */
function bundleValuesOrigin(files: FileTree, bundle: Bundle, instance: string): ValuesOrigin {
  return { files, entries: bundle.files, path: `bundle.instances.${JSON.stringify(instance)}.values` };
}

/** The positioned problems of any error, each labelled with `subject`. */
export function issuesOf(err: unknown, subject: string): TimoniIssue[] {
  if (err instanceof TimoniValidationError) return err.issues.map((i) => ({ ...i, subject: i.subject ? `${subject}: ${i.subject}` : subject }));
  if (err instanceof TimoniError || err instanceof Error) return [{ subject, message: err.message }];
  return [{ subject, message: String(err) }];
}

export { formatIssue };
