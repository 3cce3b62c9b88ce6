// Typed REST calls on objects of any kind: get, list, server-side apply, patch, delete.
import type { ClusterConnection } from './connection';
import { FIELD_MANAGER } from './constants';
import { DiscoveryCache, type ResourceInfo } from './discovery';
import { NotFoundError } from './errors';
import { formatSubject, parseApiVersion } from './object-id';
import type { KubeObject } from './types';

/** Addresses one object by apiVersion/kind/namespace/name (namespace ignored when cluster-scoped). */
export interface ObjectAddress {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export interface ApplyCallOptions {
  dryRun: boolean;
  force: boolean;
  fieldManager: string;
}

export function defaultApplyCallOptions(): ApplyCallOptions {
  return { dryRun: false, force: true, fieldManager: FIELD_MANAGER };
}

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export function addressOf(obj: KubeObject): ObjectAddress {
  return { apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name };
}

function subjectOf(a: ObjectAddress): string {
  return formatSubject({ group: parseApiVersion(a.apiVersion).group, kind: a.kind, namespace: a.namespace ?? '', name: a.name });
}

export class ObjectClient {
  readonly discovery: DiscoveryCache;

  constructor(readonly connection: ClusterConnection, discovery?: DiscoveryCache) {
    this.discovery = discovery ?? new DiscoveryCache(connection);
  }

  /** The same client acting through another connection view (e.g. impersonated), sharing discovery. */
  withConnection(connection: ClusterConnection): ObjectClient {
    return new ObjectClient(connection, this.discovery);
  }

  async resourceOf(apiVersion: string, kind: string): Promise<ResourceInfo> {
    return this.discovery.resolve(apiVersion, kind);
  }

  private collectionPath(info: ResourceInfo, namespace: string | undefined): string {
    const prefix = info.group ? `/apis/${info.group}/${info.version}` : `/api/${info.version}`;
    return info.namespaced && namespace ? `${prefix}/namespaces/${encodeURIComponent(namespace)}/${info.resource}` : `${prefix}/${info.resource}`;
  }

  /** The collection path of a kind (in `namespace` when namespaced; all namespaces without one). */
  async collectionPathOf(apiVersion: string, kind: string, namespace?: string): Promise<string> {
    return this.collectionPath(await this.resourceOf(apiVersion, kind), namespace);
  }

  async objectPath(a: ObjectAddress): Promise<string> {
    const info = await this.resourceOf(a.apiVersion, a.kind);
    return `${this.collectionPath(info, a.namespace)}/${encodeURIComponent(a.name)}`;
  }

  /** GET one object; NotFoundError when it does not exist. */
  async get(a: ObjectAddress): Promise<KubeObject> {
    return this.connection.request<KubeObject>({ method: 'GET', path: await this.objectPath(a), subject: subjectOf(a) });
  }

  /** GET one object, or undefined when it does not exist. */
  async getOptional(a: ObjectAddress): Promise<KubeObject | undefined> {
    return this.connection.request<KubeObject | undefined>({ method: 'GET', path: await this.objectPath(a), subject: subjectOf(a), absentAsUndefined: true });
  }

  async list(apiVersion: string, kind: string, opts: { namespace?: string; labelSelector?: string } = {}): Promise<KubeObject[]> {
    const info = await this.resourceOf(apiVersion, kind);
    const res = await this.connection.request<{ items?: KubeObject[] }>({
      method: 'GET',
      path: this.collectionPath(info, opts.namespace),
      query: { labelSelector: opts.labelSelector },
    });
    // list items carry no apiVersion/kind
    return (res.items ?? []).map((i) => ({ ...i, apiVersion, kind }));
  }

  /** Server-side apply (PATCH application/apply-patch+yaml; JSON is valid YAML). */
  async apply(obj: KubeObject, opts: ApplyCallOptions = defaultApplyCallOptions()): Promise<KubeObject> {
    const a = addressOf(obj);
    return this.connection.request<KubeObject>({
      method: 'PATCH',
      path: await this.objectPath(a),
      query: { fieldManager: opts.fieldManager, force: opts.force, dryRun: opts.dryRun ? 'All' : undefined },
      body: obj,
      contentType: 'application/apply-patch+yaml',
      subject: subjectOf(a),
    });
  }

  /** JSON patch (RFC 6902) or merge patch; `subresource` e.g. `status`. */
  async patch(
    a: ObjectAddress,
    body: unknown,
    type: 'json' | 'merge',
    opts: { subresource?: string; fieldManager?: string } = {},
  ): Promise<KubeObject> {
    const path = (await this.objectPath(a)) + (opts.subresource ? `/${opts.subresource}` : '');
    return this.connection.request<KubeObject>({
      method: 'PATCH',
      path,
      query: { fieldManager: opts.fieldManager },
      body,
      contentType: type === 'json' ? 'application/json-patch+json' : 'application/merge-patch+json',
      subject: subjectOf(a),
    });
  }

  /** DELETE; resolves false when the object was already gone. */
  async delete(a: ObjectAddress, propagationPolicy: PropagationPolicy = 'Background'): Promise<boolean> {
    try {
      await this.connection.request({
        method: 'DELETE',
        path: await this.objectPath(a),
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy },
        subject: subjectOf(a),
      });
      return true;
    } catch (err) {
      if (err instanceof NotFoundError) return false;
      throw err;
    }
  }
}
