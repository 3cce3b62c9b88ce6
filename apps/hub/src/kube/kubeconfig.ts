import { parse } from 'yaml';

/** How the hub authenticates to a push cluster. */
export type ClusterAuth = { token: string } | { clientCertificateData: string; clientKeyData: string };

/** Everything needed to reach one API server. */
export interface ClusterConnection {
  server: string;
  /** PEM; absent means the system trust store */
  caData?: string;
  insecureSkipTLSVerify: boolean;
  auth: ClusterAuth;
}

export class KubeconfigError extends Error {
  constructor(message: string) {
    super(`kubeconfig: ${message}`);
    this.name = 'KubeconfigError';
  }
}

interface Named<T> {
  name?: unknown;
  [k: string]: unknown;
  value?: T;
}

/** kubeconfig certificate fields hold base64 of PEM; accept PEM too. */
export function pemFrom(data: string): string {
  const trimmed = data.trim();
  if (trimmed.startsWith('-----BEGIN')) return trimmed + '\n';
  const decoded = Buffer.from(trimmed, 'base64').toString('utf8').trim();
  return decoded.startsWith('-----BEGIN') ? decoded + '\n' : '';
}

function pick<T>(list: unknown, field: string, name: string, what: string): T {
  if (!Array.isArray(list)) throw new KubeconfigError(`"${what}s" is missing or not a list`);
  const entry = (list as Named<T>[]).find((e) => e && e.name === name);
  if (!entry || typeof entry[field] !== 'object' || entry[field] === null) throw new KubeconfigError(`${what} "${name}" is not defined`);
  return entry[field] as T;
}

/**
 * Reads one context of a kubeconfig (YAML or JSON) into a connection. Only
 * self-contained credentials are accepted: a token or embedded client
 * certificate data; files, exec plugins and auth providers are refused.
 */
export function connectionFromKubeconfig(text: string, contextName?: string): { connection: ClusterConnection; context: string } {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new KubeconfigError(`not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!doc || typeof doc !== 'object') throw new KubeconfigError('not a YAML mapping');
  const context = contextName ?? (typeof doc['current-context'] === 'string' ? (doc['current-context'] as string) : undefined);
  if (!context) throw new KubeconfigError('no context given and no current-context set');
  const ctx = pick<{ cluster?: unknown; user?: unknown }>(doc.contexts, 'context', context, 'context');
  if (typeof ctx.cluster !== 'string' || typeof ctx.user !== 'string') throw new KubeconfigError(`context "${context}" needs a cluster and a user`);
  const cluster = pick<Record<string, unknown>>(doc.clusters, 'cluster', ctx.cluster, 'cluster');
  const user = pick<Record<string, unknown>>(doc.users, 'user', ctx.user, 'user');

  if (typeof cluster.server !== 'string' || !/^https?:\/\//.test(cluster.server)) {
    throw new KubeconfigError(`cluster "${ctx.cluster}" has no http(s) server`);
  }
  if (cluster['certificate-authority'] !== undefined) {
    throw new KubeconfigError(`cluster "${ctx.cluster}" refers to a CA file; embed it as certificate-authority-data`);
  }
  let caData: string | undefined;
  if (typeof cluster['certificate-authority-data'] === 'string') {
    caData = pemFrom(cluster['certificate-authority-data']);
    if (!caData) throw new KubeconfigError(`cluster "${ctx.cluster}": certificate-authority-data is not a base64 PEM`);
  }

  for (const unsupported of ['exec', 'auth-provider', 'tokenFile', 'client-certificate', 'client-key', 'username']) {
    if (user[unsupported] !== undefined) {
      throw new KubeconfigError(`user "${ctx.user}" uses "${unsupported}", which the hub cannot use; give a token or embedded client certificate data`);
    }
  }
  let auth: ClusterAuth;
  if (typeof user.token === 'string' && user.token !== '') {
    auth = { token: user.token };
  } else if (typeof user['client-certificate-data'] === 'string' && typeof user['client-key-data'] === 'string') {
    const cert = pemFrom(user['client-certificate-data']);
    const key = pemFrom(user['client-key-data']);
    if (!cert || !key) throw new KubeconfigError(`user "${ctx.user}": client certificate or key data is not a base64 PEM`);
    auth = { clientCertificateData: cert, clientKeyData: key };
  } else {
    throw new KubeconfigError(`user "${ctx.user}" has neither a token nor client-certificate-data with client-key-data`);
  }
  return {
    connection: { server: cluster.server, caData, insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true, auth },
    context,
  };
}
