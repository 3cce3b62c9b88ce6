// Kind → resource lookups through API discovery, cached per connection and group version.
import type { ClusterConnection } from './connection';
import { NotFoundError, UnknownKindError } from './errors';
import { parseApiVersion } from './object-id';

export interface ResourceInfo {
  group: string;
  version: string;
  kind: string;
  /** plural resource name used in paths */
  resource: string;
  namespaced: boolean;
}

interface ApiResourceList {
  resources?: Array<{ name: string; kind: string; namespaced: boolean }>;
}

/**
 * Lazily fetches `/api/v1` or `/apis/<group>/<version>` the first time a kind of that group
 * version is needed. A kind missing from a cached list triggers one refetch (its CRD may have
 * just been applied); `invalidate` drops entries explicitly.
 */
export class DiscoveryCache {
  private readonly lists = new Map<string, Promise<Map<string, ResourceInfo>>>();

  constructor(private readonly connection: ClusterConnection) {}

  private fetch(apiVersion: string): Promise<Map<string, ResourceInfo>> {
    const { group, version } = parseApiVersion(apiVersion);
    const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const p = this.connection.request<ApiResourceList>({ method: 'GET', path }).then((list) => {
      const kinds = new Map<string, ResourceInfo>();
      for (const r of list?.resources ?? []) {
        if (r.name.includes('/')) continue; // subresources such as deployments/status
        kinds.set(r.kind, { group, version, kind: r.kind, resource: r.name, namespaced: r.namespaced });
      }
      return kinds;
    });
    this.lists.set(apiVersion, p);
    p.catch(() => this.lists.delete(apiVersion));
    return p;
  }

  /** The resource for a kind; throws UnknownKindError when the API server does not serve it. */
  async resolve(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const cached = this.lists.get(apiVersion);
    for (const attempt of cached ? [cached, undefined] : [undefined]) {
      let kinds: Map<string, ResourceInfo>;
      try {
        kinds = await (attempt ?? this.fetch(apiVersion));
      } catch (err) {
        if (err instanceof NotFoundError) throw new UnknownKindError(apiVersion, kind, { cause: err });
        throw err;
      }
      const info = kinds.get(kind);
      if (info) return info;
    }
    throw new UnknownKindError(apiVersion, kind);
  }

  /** Forgets one group version (or everything), e.g. after CRDs were applied. */
  invalidate(apiVersion?: string): void {
    if (apiVersion) this.lists.delete(apiVersion);
    else this.lists.clear();
  }
}
