// Modules by version or digest through libs/oci with Timoni's pinning rules
// (§1.4); extracted trees kept in memory by manifest digest; local modules
// from `file://` paths.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { readFileTree, type CueEngine, type FileTree } from '@flotilla/cue';
import { checkModulePin, defaultExtractOptions, formatReference, planModulePull, pullModule, type BlobCache, type Reference, type RegistryClient } from '@flotilla/oci';
import { resolveInTree, textOf } from './cue-source';
import { ModuleFetchError } from './errors';
import { LruPromiseCache } from './build-cache';
import { DEVEL_VERSION, hashTree } from './module-build';
import type { BundleModuleRef, LoadedModule, TenantOptions } from './types';

export interface ModuleFetcherOptions {
  /** Layer blobs by digest; none streams every pull. */
  blobCache?: BlobCache;
  /** Where pulls are extracted before being read into memory. */
  workDir: string;
  /** Module trees kept in memory, by manifest digest. */
  treeCapacity: number;
}

export function defaultModuleFetcherOptions(): ModuleFetcherOptions {
  return { workDir: tmpdir(), treeCapacity: 64 };
}

/** `module` of cue.mod/module.cue, read with CUE. */
export async function moduleName(cue: CueEngine, tree: FileTree, url: string, options: TenantOptions = {}): Promise<string> {
  const src = tree['cue.mod/module.cue'];
  if (src === undefined) throw new ModuleFetchError(url, 'cue.mod/module.cue not found');
  try {
    const res = await cue.evaluate({ files: { 'module.cue': textOf(tree, 'cue.mod/module.cue') }, entries: ['module.cue'], exports: [{ path: 'module' }] }, { tenant: options.tenant });
    const name = JSON.parse(res.exports[0].json!) as unknown;
    if (typeof name !== 'string') throw new Error('module is not a string');
    return name;
  } catch (err) {
    throw new ModuleFetchError(url, `cue.mod/module.cue must define a string field "module": ${(err as Error).message}`, { cause: err });
  }
}

export class ModuleFetcher {
  private readonly options: ModuleFetcherOptions;
  private readonly byDigest: LruPromiseCache<LoadedModule>;
  private readonly pulls = new Map<string, Promise<LoadedModule>>();
  /** Registry pulls made (manifest + layers), for tests and benchmarks. */
  pullCount = 0;

  constructor(
    private readonly cue: CueEngine,
    private readonly client: RegistryClient,
    options: Partial<ModuleFetcherOptions> = {},
  ) {
    this.options = { ...defaultModuleFetcherOptions(), ...options };
    this.byDigest = new LruPromiseCache(this.options.treeCapacity);
  }

  /**
   * A bundle instance's module. `file://` URLs resolve in `source` (the
   * project tree) relative to `baseDir`, or on disk when absolute.
   */
  async fetch(ref: BundleModuleRef, source?: { tree: FileTree; baseDir: string }, options: TenantOptions = {}): Promise<LoadedModule> {
    if (ref.url.startsWith('file://')) return this.local(ref.url, source, options);
    let plan;
    try {
      plan = planModulePull(ref);
    } catch (err) {
      throw new ModuleFetchError(ref.url, (err as Error).message, { cause: err });
    }
    const key = formatReference(plan.reference);
    // A digest names immutable content: the tree is reused without a pull.
    // A tag costs one manifest HEAD, then the same cache by digest.
    const pulled = this.shared(key, async () => {
      let digest = plan.reference.digest;
      if (!digest) {
        try {
          digest = (await this.client.resolve(plan.reference)).digest;
        } catch (err) {
          throw new ModuleFetchError(ref.url, (err as Error).message, { cause: err });
        }
      }
      const { tag: _tag, ...repo } = plan.reference;
      return this.byDigest.getOrCreate(digest, () => this.pull(ref.url, { ...repo, digest }, options));
    });
    const module = await pulled;
    try {
      checkModulePin(plan, module.ref.digest);
    } catch (err) {
      throw new ModuleFetchError(ref.url, (err as Error).message, { cause: err });
    }
    return module;
  }

  private shared(key: string, run: () => Promise<LoadedModule>): Promise<LoadedModule> {
    const running = this.pulls.get(key);
    if (running) return running;
    const p = run().finally(() => this.pulls.delete(key));
    this.pulls.set(key, p);
    return p;
  }

  private async pull(url: string, reference: Reference, options: TenantOptions): Promise<LoadedModule> {
    const dest = await mkdtemp(join(this.options.workDir, 'flotilla-module-'));
    try {
      this.pullCount++;
      let pulled;
      try {
        pulled = await pullModule(this.client, reference, dest, { cache: this.options.blobCache, extract: defaultExtractOptions() });
      } catch (err) {
        throw new ModuleFetchError(url, (err as Error).message, { cause: err });
      }
      const tree = readFileTree(dest);
      const loaded: LoadedModule = {
        tree,
        treeHash: hashTree(tree),
        ref: { name: await moduleName(this.cue, tree, url, options), repository: pulled.repository, version: pulled.version || DEVEL_VERSION, digest: pulled.digest },
      };
      return loaded;
    } finally {
      await rm(dest, { recursive: true, force: true });
    }
  }

  private async local(url: string, source: { tree: FileTree; baseDir: string } | undefined, options: TenantOptions): Promise<LoadedModule> {
    const path = url.slice('file://'.length);
    let tree: FileTree;
    if (isAbsolute(path)) {
      try {
        tree = readFileTree(path);
      } catch (err) {
        throw new ModuleFetchError(url, `cannot read ${path}: ${(err as Error).message}`, { cause: err });
      }
    } else {
      const dir = source ? resolveInTree(source.baseDir, path) : undefined;
      if (!source || !dir) throw new ModuleFetchError(url, 'relative file:// module outside the project source');
      tree = {};
      for (const [p, c] of Object.entries(source.tree)) if (p.startsWith(`${dir}/`)) tree[p.slice(dir.length + 1)] = c;
    }
    for (const required of ['cue.mod/module.cue', 'timoni.cue', 'values.cue']) {
      if (tree[required] === undefined) throw new ModuleFetchError(url, `local module has no ${required}`);
    }
    return { tree, treeHash: hashTree(tree), ref: { name: await moduleName(this.cue, tree, url, options), repository: url, version: DEVEL_VERSION, digest: 'unknown' } };
  }
}
