// One context of a kubeconfig as ClusterCredentials. By default only self-contained
// credentials (a token, embedded certificate data): the hub takes kubeconfigs from its API
// users, and a path there would name a file on the hub's own disk. Local tools (the agent's
// --kubeconfig) may allow files explicitly.
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import type { ClusterCredentials } from './connection';
import { KubeconfigError } from './errors';

export interface KubeconfigOptions {
  /** the context to use; default: `current-context` */
  context?: string;
  /**
   * Local development only: accept `tokenFile`, `client-certificate`/`client-key` and
   * `certificate-authority` paths, relative ones resolved against `baseDir` (the
   * kubeconfig's directory). Certificates are read now; the token file is re-read
   * by the connection as it rotates.
   */
  allowFiles?: { baseDir: string };
}

/** Certificates and keys are a few KiB; refuse anything absurd before reading it. */
const MAX_PEM_FILE_BYTES = 1024 * 1024;

/** kubeconfig certificate fields hold base64 of PEM; accept PEM too. '' when it is neither. */
export function pemFrom(data: string): string {
  const trimmed = data.trim();
  if (trimmed.startsWith('-----BEGIN')) return trimmed + '\n';
  const decoded = Buffer.from(trimmed, 'base64').toString('utf8').trim();
  return decoded.startsWith('-----BEGIN') ? decoded + '\n' : '';
}

interface Named {
  name?: unknown;
  [k: string]: unknown;
}

function pick<T>(list: unknown, field: string, name: string, what: string): T {
  if (!Array.isArray(list)) throw new KubeconfigError(`"${what}s" is missing or not a list`);
  const entry = (list as Named[]).find((e) => e && e.name === name);
  if (!entry || typeof entry[field] !== 'object' || entry[field] === null) throw new KubeconfigError(`${what} "${name}" is not defined`);
  return entry[field] as T;
}

function pemFile(path: unknown, baseDir: string, what: string): string {
  if (typeof path !== 'string' || path === '') throw new KubeconfigError(`${what} is not a file path`);
  const full = isAbsolute(path) ? path : resolve(baseDir, path);
  let text: string;
  try {
    const size = statSync(full).size;
    if (size > MAX_PEM_FILE_BYTES) throw new KubeconfigError(`${what} ${full} is larger than ${MAX_PEM_FILE_BYTES} bytes`);
    text = readFileSync(full, 'utf8');
  } catch (err) {
    if (err instanceof KubeconfigError) throw err;
    throw new KubeconfigError(`${what} ${full} cannot be read: ${(err as Error).message}`, { cause: err });
  }
  const pem = pemFrom(text);
  if (!pem) throw new KubeconfigError(`${what} ${full} is not PEM`);
  return pem;
}

/** Reads one context of a kubeconfig (YAML or JSON). */
export function credentialsFromKubeconfig(text: string, options: KubeconfigOptions = {}): { credentials: ClusterCredentials; context: string } {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new KubeconfigError(`not valid YAML: ${(err as Error).message.split('\n')[0]}`, { cause: err });
  }
  if (!doc || typeof doc !== 'object') throw new KubeconfigError('not a YAML mapping');
  const context = options.context ?? (typeof doc['current-context'] === 'string' ? (doc['current-context'] as string) : undefined);
  if (!context) throw new KubeconfigError('no context given and no current-context set');
  const ctx = pick<{ cluster?: unknown; user?: unknown }>(doc.contexts, 'context', context, 'context');
  if (typeof ctx.cluster !== 'string' || typeof ctx.user !== 'string') throw new KubeconfigError(`context "${context}" needs a cluster and a user`);
  const cluster = pick<Record<string, unknown>>(doc.clusters, 'cluster', ctx.cluster, 'cluster');
  const user = pick<Record<string, unknown>>(doc.users, 'user', ctx.user, 'user');
  const files = options.allowFiles;

  if (typeof cluster.server !== 'string' || !/^https?:\/\//.test(cluster.server)) {
    throw new KubeconfigError(`cluster "${ctx.cluster}" has no http(s) server`);
  }
  if (cluster['certificate-authority'] !== undefined && !files) {
    throw new KubeconfigError(`cluster "${ctx.cluster}" refers to a CA file; embed it as certificate-authority-data`);
  }
  let caData: string | undefined;
  if (typeof cluster['certificate-authority-data'] === 'string') {
    caData = pemFrom(cluster['certificate-authority-data']);
    if (!caData) throw new KubeconfigError(`cluster "${ctx.cluster}": certificate-authority-data is not a base64 PEM`);
  } else if (files && cluster['certificate-authority'] !== undefined) {
    caData = pemFile(cluster['certificate-authority'], files.baseDir, `cluster "${ctx.cluster}": certificate-authority`);
  }

  const refused = files ? ['exec', 'auth-provider', 'username'] : ['exec', 'auth-provider', 'tokenFile', 'client-certificate', 'client-key', 'username'];
  for (const unsupported of refused) {
    if (user[unsupported] !== undefined) {
      const hint = files || !['tokenFile', 'client-certificate', 'client-key'].includes(unsupported) ? '' : ' (files are only read for local use)';
      throw new KubeconfigError(`user "${ctx.user}" uses "${unsupported}", which Flotilla cannot use${hint}; give a token or embedded client certificate data`);
    }
  }
  const credentials: ClusterCredentials = { server: cluster.server, caData, insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true };
  const certData = user['client-certificate-data'];
  const keyData = user['client-key-data'];
  if (typeof user.token === 'string' && user.token !== '') {
    credentials.token = user.token;
  } else if (files && typeof user.tokenFile === 'string' && user.tokenFile !== '') {
    credentials.tokenFile = isAbsolute(user.tokenFile) ? user.tokenFile : resolve(files.baseDir, user.tokenFile);
  } else if (typeof certData === 'string' && typeof keyData === 'string') {
    const cert = pemFrom(certData);
    const key = pemFrom(keyData);
    if (!cert || !key) throw new KubeconfigError(`user "${ctx.user}": client certificate or key data is not a base64 PEM`);
    credentials.clientCertData = cert;
    credentials.clientKeyData = key;
  } else if (files && user['client-certificate'] !== undefined && user['client-key'] !== undefined) {
    credentials.clientCertData = pemFile(user['client-certificate'], files.baseDir, `user "${ctx.user}": client-certificate`);
    credentials.clientKeyData = pemFile(user['client-key'], files.baseDir, `user "${ctx.user}": client-key`);
  } else {
    throw new KubeconfigError(`user "${ctx.user}" has neither a token nor client-certificate-data with client-key-data`);
  }
  return { credentials, context };
}
