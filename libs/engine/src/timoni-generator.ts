// The ManifestGenerator over libs/timoni: project.cue loading and planning,
// runtime values, bundles with injection, module fetch and build (a build
// cache shared by every run, so Targets with equal inputs render once).
import type { CueEngine } from '@flotilla/cue';
import { AuthError, RegistryClient, RegistryError, formatReference, planModulePull, type BlobCache, type Descriptor } from '@flotilla/oci';
import {
  ComponentBuilder, CueHealthCheckEvaluator, ModuleBuilder, ModuleFetchError, ModuleFetcher, loadProject,
  type Bundle, type BundleModuleRef, type BuildCacheStats, type LoadedProject, type ProjectComponent,
} from '@flotilla/timoni';
import { tmpdir } from 'node:os';
import { TransientGeneratorError } from './errors';
import { SharedInflight } from './shared-inflight';
import type { BuiltInstance, BundlePlan, ComponentRequest, ManifestGenerator, ProjectPlan, SourceFiles } from './types';

export interface TimoniGeneratorOptions {
  /** finished module builds kept in memory (shared by all runs) */
  buildCacheCapacity: number;
  /** loaded bundles kept in memory, by source and the runtime values they read */
  bundleCacheCapacity: number;
  /** module layer blobs by digest, on disk */
  blobCache?: BlobCache;
  /** where modules are extracted before being read into memory */
  workDir: string;
}

export function defaultTimoniGeneratorOptions(): TimoniGeneratorOptions {
  return { buildCacheCapacity: 256, bundleCacheCapacity: 256, workDir: tmpdir() };
}

/** A registry or network failure is worth a retry; a bad pin, layout or module.cue is not. */
function transient(err: unknown): boolean {
  if (!(err instanceof ModuleFetchError)) return false;
  const cause = err.cause;
  if (cause instanceof AuthError) return true;
  if (cause instanceof RegistryError) return cause.status === 0 || cause.status === 404 || cause.status === 429 || cause.status >= 500 || cause.status === 401 || cause.status === 403;
  return cause instanceof Error && (cause.name === 'TypeError' || cause.name === 'AbortError' || cause.name === 'TimeoutError');
}

export class TimoniManifestGenerator implements ManifestGenerator {
  readonly options: TimoniGeneratorOptions;
  readonly builder: ModuleBuilder;
  private readonly loaded = new WeakMap<ProjectPlan, LoadedProject>();
  // Plans by source tree (SourceCache hands out one tree object per digest) and path.
  private readonly plans = new WeakMap<SourceFiles, Map<string, Promise<ProjectPlan>>>();
  /** project.cue evaluations made (the rest were answered from the plan cache) */
  projectLoads = 0;
  // Runtime definitions and bundles: shared by every run, so Targets whose
  // runtime values agree load a bundle once. Its fetcher is never used.
  private readonly shared: ComponentBuilder;
  // Modules: one fetcher per registry client (one per run, carrying that
  // Project's credentials); builds still go through the shared build cache.
  private readonly components = new WeakMap<RegistryClient, ComponentBuilder>();
  /** tag resolutions under way, per registry client (its credentials): a fleet's runs that ask at once share one HEAD */
  private readonly resolving = new WeakMap<RegistryClient, SharedInflight<Descriptor>>();

  constructor(private readonly cue: CueEngine, options: Partial<TimoniGeneratorOptions> = {}) {
    this.options = { ...defaultTimoniGeneratorOptions(), ...options };
    this.builder = new ModuleBuilder(cue, { cacheCapacity: this.options.buildCacheCapacity });
    this.shared = new ComponentBuilder(cue, new ModuleFetcher(cue, new RegistryClient({ credentials: { kind: 'anonymous' } })), this.builder, {
      bundleCacheCapacity: this.options.bundleCacheCapacity,
    });
  }

  /** `tenant`: whose evaluation it is (libs/cue); a plan cached for another Project's load is reused. */
  loadProject(files: SourceFiles, path: string, tenant?: string): Promise<ProjectPlan> {
    let byPath = this.plans.get(files);
    if (!byPath) this.plans.set(files, (byPath = new Map()));
    let plan = byPath.get(path);
    if (!plan) {
      plan = this.load(files, path, tenant);
      byPath.set(path, plan);
      plan.catch(() => byPath.delete(path));
    }
    return plan;
  }

  /** Cache figures: module builds and bundle loads (hits are renders shared between Targets). */
  stats(): { builds: BuildCacheStats; bundles: BuildCacheStats; projectLoads: number } {
    return { builds: this.builder.stats(), bundles: this.shared.bundleStats(), projectLoads: this.projectLoads };
  }

  private async load(files: SourceFiles, path: string, tenant: string | undefined): Promise<ProjectPlan> {
    this.projectLoads++;
    const loaded = await loadProject(this.cue, files, { path, tenant });
    const plan: ProjectPlan = {
      name: loaded.project.name,
      components: loaded.project.components.map((c) => ({ name: c.name, needs: c.needs, wait: c.wait, timeoutMs: c.timeoutMs })),
    };
    this.loaded.set(plan, loaded);
    return plan;
  }

  runtimeValues(req: ComponentRequest): Promise<Record<string, string>> {
    return this.shared.runtimeValues(req.files, this.component(req), {
      cluster: req.target.cluster,
      annotations: req.target.annotations,
      reader: req.target.reader,
      kubeVersion: req.target.kubeVersion,
    }, { tenant: req.tenant });
  }

  async bundle(req: ComponentRequest, values: Record<string, string>): Promise<BundlePlan> {
    const bundle = await this.shared.bundle(req.files, this.component(req), values, { tenant: req.tenant });
    return { name: bundle.name, instances: bundle.instances.map((i) => ({ name: i.name, namespace: i.namespace })), data: bundle };
  }

  async buildInstance(req: ComponentRequest, plan: BundlePlan, instance: string): Promise<BuiltInstance> {
    const bundle = plan.data as Bundle;
    const index = bundle.instances.findIndex((i) => i.name === instance);
    if (index < 0) throw new Error(`bundle ${bundle.name} has no instance ${instance}`);
    let build;
    try {
      const pinned = { ...bundle, instances: [...bundle.instances] };
      pinned.instances[index] = { ...bundle.instances[index], module: await this.pinModule(bundle.instances[index].module, req.registry) };
      build = await this.componentBuilder(req.registry).instance(req.files, pinned, index, req.target.kubeVersion, { tenant: req.tenant });
    } catch (err) {
      if (transient(err)) throw new TransientGeneratorError((err as Error).message, { cause: err });
      throw err;
    }
    const { name, repository, version, digest } = build.module;
    return {
      name: build.instance,
      namespace: build.namespace,
      module: { name, repository, version, digest },
      values: build.values,
      images: build.images,
      steps: build.steps,
      healthCheck: build.healthChecks.length > 0 ? new CueHealthCheckEvaluator(this.cue, build, { tenant: req.tenant }) : undefined,
    };
  }

  /**
   * A module asked for by tag is resolved with one HEAD and then fetched by
   * digest: the content of a digest never changes, so its tree and builds
   * come from the caches on later runs. Same result as pulling the tag.
   * Builds that ask while the same tag is being resolved share that answer
   * (they asked at the same moment); none is kept for a later build.
   */
  private async pinModule(module: BundleModuleRef, registry: RegistryClient): Promise<BundleModuleRef> {
    if (!module.url.startsWith('oci://') || module.digest || module.version.startsWith('@')) return module;
    let plan;
    try {
      plan = planModulePull(module);
    } catch {
      return module; // the fetcher reports the bad reference
    }
    try {
      let shared = this.resolving.get(registry);
      if (!shared) this.resolving.set(registry, (shared = new SharedInflight()));
      const { digest } = await shared.run(formatReference(plan.reference), () => registry.resolve(plan.reference));
      return { url: module.url, version: 'latest', digest };
    } catch (err) {
      throw new ModuleFetchError(module.url, (err as Error).message, { cause: err });
    }
  }

  private component(req: ComponentRequest): ProjectComponent {
    const loaded = this.loaded.get(req.project);
    const c = loaded?.project.components.find((x) => x.name === req.component.name);
    if (!c) throw new Error(`component ${req.component.name} was not loaded by this generator`);
    return c;
  }

  private componentBuilder(registry: RegistryClient): ComponentBuilder {
    let cb = this.components.get(registry);
    if (!cb) {
      const fetcher = new ModuleFetcher(this.cue, registry, { blobCache: this.options.blobCache, workDir: this.options.workDir });
      cb = new ComponentBuilder(this.cue, fetcher, this.builder);
      this.components.set(registry, cb);
    }
    return cb;
  }
}
