// Builds instances through a cache keyed by the hash of their inputs, so a
// bundle rendered for many clusters with the same values evaluates once.
import type { CueEngine } from '@flotilla/cue';
import { LruPromiseCache, type BuildCacheStats } from './build-cache';
import { ModuleBuildError } from './errors';
import { buildKey, buildModule, type BuildRequest } from './module-build';
import type { InstanceBuild } from './types';

export interface ModuleBuilderOptions {
  /** Finished builds kept in memory. */
  cacheCapacity: number;
}

export function defaultModuleBuilderOptions(): ModuleBuilderOptions {
  return { cacheCapacity: 256 };
}

export class ModuleBuilder {
  // Build errors (bad values, CUE conflicts) are as deterministic as builds:
  // kept too, so a broken input fails fast on every cluster. Engine faults
  // (timeouts, memory) are not kept.
  private readonly cache: LruPromiseCache<InstanceBuild | ModuleBuildError>;

  constructor(
    private readonly cue: CueEngine,
    options: Partial<ModuleBuilderOptions> = {},
  ) {
    this.cache = new LruPromiseCache({ ...defaultModuleBuilderOptions(), ...options }.cacheCapacity);
  }

  /** The build for these inputs; each caller gets its own copy of the objects. */
  async build(req: BuildRequest): Promise<InstanceBuild> {
    const shared = await this.cache.getOrCreate(buildKey(req), () =>
      buildModule(this.cue, req).catch((err: unknown) => {
        if (err instanceof ModuleBuildError) return err;
        throw err;
      }),
    );
    if (shared instanceof ModuleBuildError) throw shared;
    const { context, ...data } = shared;
    return { ...structuredClone(data), context };
  }

  stats(): BuildCacheStats {
    return this.cache.stats();
  }
}
