// How the hub reaches a push cluster as itself: the stored endpoint and sealed
// credentials, opened as a libs/kube connection. Shared by the Target runs and
// the source poller (which reads image pull secrets with it).
import { ClusterConnection as KubeConnection } from '@flotilla/kube';
import type { StoredClusterSecret } from '../clusters/cluster-connection';
import type { CredentialsService } from '../credentials/credentials.service';
import type { ClusterEntity } from '../database/entities';
import type { ClusterConnection } from '../kube/kubeconfig';
import type { KubeRequestEvent } from './target-runner';

/** The cluster's connection, or null when it is not a push cluster or has no stored credentials. */
export async function pushConnection(credentials: CredentialsService, cluster: ClusterEntity): Promise<ClusterConnection | null> {
  if (cluster.mode !== 'push' || !cluster.server || !cluster.credentialId) return null;
  const stored = await credentials.reveal<StoredClusterSecret>(cluster.credentialId);
  if (!stored) return null;
  return { server: cluster.server, caData: cluster.caData ?? undefined, insecureSkipTLSVerify: cluster.insecureSkipTlsVerify, auth: stored.secret.auth };
}

/** Opens a connection; every request is reported to `onRequest` (metrics). */
export function openKubeConnection(c: ClusterConnection, onRequest: (e: KubeRequestEvent) => void): KubeConnection {
  return KubeConnection.create(
    {
      server: c.server,
      caData: c.caData,
      insecureSkipTLSVerify: c.insecureSkipTLSVerify,
      ...('token' in c.auth ? { token: c.auth.token } : { clientCertData: c.auth.clientCertificateData, clientKeyData: c.auth.clientKeyData }),
    },
    { userAgent: 'flotilla-hub', onRequest: (e) => onRequest({ method: e.method, pathTemplate: e.pathTemplate, statusCode: e.statusCode, durationMs: e.durationMs }) },
  );
}
