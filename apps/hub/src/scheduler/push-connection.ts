// How the hub reaches a push cluster as itself: the stored endpoint and sealed
// credentials, opened as a libs/kube connection. Shared by the Target runs and
// the source poller (which reads image pull secrets with it).
import type { EgressPolicy } from '@flotilla/egress';
import { ClusterConnection, type ClusterCredentials } from '@flotilla/kube';
import { credentialsWith, type StoredClusterSecret } from '../clusters/cluster-connection';
import { clusterServerBinding } from '../credentials/credential-binding';
import type { CredentialsService } from '../credentials/credentials.service';
import type { ClusterEntity } from '../database/entities';
import type { KubeRequestEvent } from './target-runner';

/** The cluster's credentials, or null when it is not a push cluster or has no stored credentials. */
export async function pushConnection(credentials: CredentialsService, cluster: ClusterEntity): Promise<ClusterCredentials | null> {
  if (cluster.mode !== 'push' || !cluster.server || !cluster.credentialId) return null;
  const stored = await credentials.reveal<StoredClusterSecret>(cluster.credentialId, clusterServerBinding(cluster.server));
  if (!stored) return null;
  return credentialsWith({ server: cluster.server, caData: cluster.caData ?? undefined, insecureSkipTLSVerify: cluster.insecureSkipTlsVerify }, stored.secret.auth);
}

/** How long an idle socket to a push cluster stays open: a cluster's runs and events reuse it (PushConnections). */
export const PUSH_KEEP_ALIVE_MS = 30_000;

/** Opens a connection under the hub's egress policy; every request is reported to `onRequest` (metrics). */
export function openKubeConnection(c: ClusterCredentials, egress: EgressPolicy, onRequest: (e: KubeRequestEvent) => void): ClusterConnection {
  return ClusterConnection.create(c, {
    userAgent: 'flotilla-hub',
    egress,
    keepAliveMs: PUSH_KEEP_ALIVE_MS,
    onRequest: (e) => onRequest({ method: e.method, pathTemplate: e.pathTemplate, statusCode: e.statusCode, durationMs: e.durationMs }),
  });
}
