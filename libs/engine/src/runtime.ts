// Everything a reconcile needs, built once per process from plain options:
// the CUE engine (started at the first run, so a process that never
// reconciles never pays for it), the artifact and module caches, the Timoni
// generator and the shared registry clients. The hub and the agent construct
// it the same way and call reconcile / deleteProject on it.
import { CueEngine, type CueEngineOptions } from '@flotilla/cue';
import type { ResourceManager } from '@flotilla/kube';
import { BlobCache, defaultBlobCacheOptions, type RegistryClientOptions } from '@flotilla/oci';
import type { ReconcileOptions } from './options';
import { deleteProject, type DeleteInput } from './project-delete';
import { diffProject, type DiffInput, type ProjectDiff } from './project-diff';
import { reconcileProject } from './project-reconcile';
import { RegistryClients } from './registry-clients';
import { resolveRegistryCredentials } from './registry-credentials';
import { resolveTag, SourceCache, type SourceCacheOptions } from './source-fetch';
import { TimoniManifestGenerator, type TimoniGeneratorOptions } from './timoni-generator';
import type { CredentialsStore, ManifestGenerator, ProjectSpec, ReconcileHooks, ReconcileInput, RunResult } from './types';

export interface EngineRuntimeOptions {
  /** on-disk blob cache of artifacts and modules */
  cacheDir: string;
  cue: Partial<CueEngineOptions>;
  generator: Partial<Omit<TimoniGeneratorOptions, 'blobCache'>>;
  sources: Partial<Omit<SourceCacheOptions, 'blobCache'>>;
  registry: Partial<Omit<RegistryClientOptions, 'credentials'>>;
  reconcile: Partial<ReconcileOptions>;
  /** Told where CUE runs once it started (at the first run), so apps can log a fallback to wasm. */
  onCueStarted?: (info: CueStartInfo) => void;
}

export interface CueStartInfo {
  runtime: 'native' | 'wasm';
  /** why the native helper was not used, when it was not */
  fallbackReason?: string;
  startMs: number;
}

export function defaultEngineRuntimeOptions(cacheDir: string): EngineRuntimeOptions {
  return { cacheDir, cue: {}, generator: {}, sources: {}, registry: {}, reconcile: {} };
}

/** The shared pieces; tests and benchmarks pass their own generator. */
export interface RuntimeParts {
  generator: ManifestGenerator;
  sources: SourceCache;
  registries: RegistryClients;
  close(): Promise<void>;
}

/** How one run reaches its cluster and registries. */
export interface RunAccess {
  /** the target cluster with the caller's own identity (hub: the cluster's credentials; agent: its service account) */
  manager: ResourceManager;
  /** the Project's own registry credentials, when it has any */
  credentials?: CredentialsStore;
  hooks?: ReconcileHooks;
}

export class EngineRuntime {
  private parts: Promise<RuntimeParts> | undefined;

  private constructor(
    private readonly start: () => Promise<RuntimeParts>,
    private readonly reconcileOptions: Partial<ReconcileOptions>,
  ) {}

  static create(options: Partial<EngineRuntimeOptions> & Pick<EngineRuntimeOptions, 'cacheDir'>): EngineRuntime {
    const o = { ...defaultEngineRuntimeOptions(options.cacheDir), ...options };
    return new EngineRuntime(async () => {
      const cue = await CueEngine.start(o.cue);
      o.onCueStarted?.({ runtime: cue.runtime, fallbackReason: cue.fallbackReason, startMs: cue.startMs });
      const blobCache = new BlobCache(defaultBlobCacheOptions(o.cacheDir));
      return {
        generator: new TimoniManifestGenerator(cue, { ...o.generator, blobCache }),
        sources: new SourceCache({ ...o.sources, blobCache }),
        registries: new RegistryClients(64, o.registry),
        close: () => cue.close(),
      };
    }, o.reconcile);
  }

  static fromParts(parts: RuntimeParts, reconcile: Partial<ReconcileOptions> = {}): EngineRuntime {
    return new EngineRuntime(async () => parts, reconcile);
  }

  /** Applies the Project on the cluster and prunes what left it. Never throws. */
  async reconcile(input: ReconcileInput, access: RunAccess): Promise<RunResult> {
    const parts = await this.ready();
    return reconcileProject(input, {
      generator: parts.generator,
      sources: parts.sources,
      registries: parts.registries,
      manager: access.manager,
      credentials: access.credentials,
      hooks: access.hooks,
      options: this.reconcileOptions,
    });
  }

  /** What a reconcile would change, by server-side dry run; applies nothing. Throws when the artifact cannot be loaded. */
  async diff(input: DiffInput, access: Pick<RunAccess, 'manager' | 'credentials'>): Promise<ProjectDiff> {
    const parts = await this.ready();
    return diffProject(input, {
      generator: parts.generator,
      sources: parts.sources,
      registries: parts.registries,
      manager: access.manager,
      credentials: access.credentials,
      options: this.reconcileOptions,
    });
  }

  /** Deletes every instance of the Project on the cluster. Never throws; needs no CUE. */
  deleteProject(input: DeleteInput, access: Pick<RunAccess, 'manager' | 'hooks'>): Promise<RunResult> {
    return deleteProject(input, { manager: access.manager, hooks: access.hooks, options: this.reconcileOptions });
  }

  /**
   * The digest `source.tag` points at now, with the credentials a reconcile
   * would use (the Project's own, else its service account's pull secrets):
   * the cheap check that tells whether a reconcile has anything new to apply.
   */
  async resolveDigest(project: ProjectSpec, access: Pick<RunAccess, 'manager' | 'credentials'>, signal?: AbortSignal): Promise<string> {
    const parts = await this.ready();
    const credentials = await resolveRegistryCredentials(project, access.credentials, access.manager.client);
    return resolveTag(parts.registries.get(credentials), project.source.repository, project.source.tag, { signal });
  }

  async close(): Promise<void> {
    const parts = await this.parts?.catch(() => undefined);
    await parts?.close();
  }

  private ready(): Promise<RuntimeParts> {
    if (!this.parts) {
      const started = this.start();
      this.parts = started;
      // a failed start is retried by the next run
      started.catch(() => {
        if (this.parts === started) this.parts = undefined;
      });
    }
    return this.parts;
  }
}
