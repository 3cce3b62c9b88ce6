// Tag resolution for a Project without registry credentials of its own, when
// the registry refuses anonymous access: the image pull secrets of its service
// account, read as the hub in one of its push clusters, exactly as libs/engine
// reads them for a reconcile (resolveRegistryCredentials without a store).
import { resolveRegistryCredentials, type ResolvedCredentials } from '@flotilla/engine';
import { ObjectClient } from '@flotilla/kube';
import { AuthError, RegistryError } from '@flotilla/oci';
import type { ClusterEntity } from '../../database/entities';
import type { PushConnectionLease } from '../push-connections';

/** The registry asked for credentials (or refused the anonymous ones). */
export function isAuthRefusal(err: unknown): boolean {
  return err instanceof AuthError || (err instanceof RegistryError && (err.status === 401 || err.status === 403));
}

export interface PullSecretProject {
  name: string;
  namespace: string;
  serviceAccountName: string;
  repository: string;
  tag: string;
}

export type PullSecretLookup =
  | { found: true; credentials: ResolvedCredentials; cluster: string }
  /** `tried` says, per cluster, what came of it (`none` or the error) */
  | { found: false; tried: string[] };

/**
 * Reads pull secrets cluster by cluster until one has some; remembers each
 * cluster + namespace + service account for its lifetime (one poll).
 */
export class PullSecretReader {
  private readonly seen = new Map<string, Promise<ResolvedCredentials>>();

  /** `leaseOf` lends the hub's own connection to a push cluster (PushConnections), null when it has none */
  constructor(private readonly leaseOf: (cluster: ClusterEntity) => Promise<PushConnectionLease | null>) {}

  /** `clusters` in the Project's Target order; only push clusters with stored credentials are asked. */
  async lookup(project: PullSecretProject, clusters: readonly ClusterEntity[]): Promise<PullSecretLookup> {
    const where = `pull secrets of ${project.namespace}/${project.serviceAccountName}`;
    const tried: string[] = [];
    for (const cluster of clusters.filter((c) => c.mode === 'push')) {
      try {
        const creds = await this.read(project, cluster);
        if (creds.fingerprint !== 'anonymous') return { found: true, credentials: creds, cluster: cluster.name };
        tried.push(`${where} in cluster ${cluster.name}: none`);
      } catch (err) {
        tried.push(`${where} in cluster ${cluster.name}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (tried.length === 0) tried.push(`${where}: no push cluster to read them in`);
    return { found: false, tried };
  }

  private read(project: PullSecretProject, cluster: ClusterEntity): Promise<ResolvedCredentials> {
    const key = `${cluster.id}\u0000${project.namespace}\u0000${project.serviceAccountName}`;
    let pending = this.seen.get(key);
    if (!pending) {
      pending = this.readUncached(project, cluster);
      this.seen.set(key, pending);
    }
    return pending;
  }

  private async readUncached(project: PullSecretProject, cluster: ClusterEntity): Promise<ResolvedCredentials> {
    const lease = await this.leaseOf(cluster);
    if (!lease) throw new Error('no stored endpoint or credentials for push mode');
    try {
      const spec = { name: project.name, namespace: project.namespace, serviceAccountName: project.serviceAccountName, source: { repository: project.repository, tag: project.tag, path: '' }, annotations: {} };
      return await resolveRegistryCredentials(spec, undefined, new ObjectClient(lease.connection));
    } finally {
      lease.release();
    }
  }
}
