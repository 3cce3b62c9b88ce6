import { EgressPolicy } from '@flotilla/egress';
import { Injectable } from '@nestjs/common';
import { ClusterConnection, KubeApiError, type ClusterCredentials } from '@flotilla/kube';

export class KubeUnreachableError extends Error {
  constructor(server: string, reason: string, options?: { cause?: unknown }) {
    super(`${server}: ${reason}`, options);
    this.name = 'KubeUnreachableError';
  }
}

const HINTS: Record<number, string> = { 401: ' (credentials rejected)', 403: ' (not allowed to read /version)' };

/** What a check of a push cluster learns. */
export interface ClusterProbe {
  /** the server's gitVersion */
  version: string;
  /**
   * The uid of its `kube-system` Namespace: the same API server registered
   * twice shows the same one. Absent when the hub's identity may not read it.
   */
  identity?: string;
}

/** The hub's calls to remote API servers, through libs/kube connections. */
@Injectable()
export class KubeRepository {
  constructor(private readonly egress: EgressPolicy) {}

  /** GET /version (and the cluster's identity): KubeUnreachableError saying why not. */
  async probe(conn: ClusterCredentials, timeoutMs = 5000): Promise<ClusterProbe> {
    let kube: ClusterConnection;
    try {
      kube = ClusterConnection.create(conn, { requestTimeoutMs: timeoutMs, userAgent: 'flotilla-hub', egress: this.egress });
    } catch (err) {
      throw new KubeUnreachableError(conn.server, err instanceof Error ? err.message : String(err), { cause: err });
    }
    try {
      const v = await kube.request<{ gitVersion?: unknown }>({ method: 'GET', path: '/version' });
      if (typeof v?.gitVersion !== 'string') throw new KubeUnreachableError(conn.server, 'GET /version did not return a Kubernetes version');
      const identity = await kube
        .request<{ metadata?: { uid?: unknown } }>({ method: 'GET', path: '/api/v1/namespaces/kube-system' })
        .then((ns) => (typeof ns?.metadata?.uid === 'string' ? ns.metadata.uid : undefined))
        .catch(() => undefined); // best effort: the identity may not read Namespaces
      return { version: v.gitVersion, ...(identity ? { identity } : {}) };
    } catch (err) {
      if (err instanceof KubeApiError) {
        const reason =
          err.statusCode === 0
            ? `GET /version: ${describeCause(err.cause) ?? err.status?.message ?? 'no response'}`
            : `GET /version answered ${err.statusCode}${HINTS[err.statusCode] ?? ''}`;
        throw new KubeUnreachableError(conn.server, reason, { cause: err });
      }
      throw err;
    } finally {
      await kube.close();
    }
  }
}

/** The innermost message of a network error (undici wraps the socket's). */
function describeCause(cause: unknown): string | undefined {
  let c = cause as { message?: string; code?: string; cause?: unknown } | undefined;
  let best: string | undefined;
  for (let depth = 0; c && depth < 5; depth++) {
    if (c.message) best = c.code && !c.message.includes(c.code) ? `${c.code}: ${c.message}` : c.message;
    c = c.cause as typeof c;
  }
  return best;
}
