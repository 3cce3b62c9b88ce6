// Credentials of a pod's own service account: the API server from the service env,
// the token, CA and namespace from the mounted service-account files. The token file
// is handed to the connection, which re-reads it as the kubelet rotates it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterCredentials } from './connection';
import { InClusterConfigError } from './errors';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface InClusterOptions {
  /** where the service-account files are mounted */
  serviceAccountDir?: string;
  /** the environment holding KUBERNETES_SERVICE_HOST/PORT (default: process.env) */
  env?: Record<string, string | undefined>;
}

export interface InClusterConfig {
  credentials: ClusterCredentials;
  /** the pod's namespace (the service account's) */
  namespace: string;
}

/** Each mounted file is small; a larger one is not what we expect. */
const MAX_FILE_BYTES = 1024 * 1024;

function readMounted(dir: string, file: string): string {
  const path = join(dir, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'is missing' : `cannot be read: ${(err as Error).message}`;
    throw new InClusterConfigError(`in-cluster config: ${path} ${why} (is a service-account token mounted?)`, { cause: err });
  }
  if (text.length > MAX_FILE_BYTES) throw new InClusterConfigError(`in-cluster config: ${path} is larger than ${MAX_FILE_BYTES} bytes`);
  if (!text.trim()) throw new InClusterConfigError(`in-cluster config: ${path} is empty`);
  return text;
}

/** `https://host:port`, with brackets around an IPv6 host. */
export function inClusterServer(host: string, port: string): string {
  return `https://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

/** Reads the in-cluster configuration; InClusterConfigError names what is missing. */
export function inClusterCredentials(options: InClusterOptions = {}): InClusterConfig {
  const env = options.env ?? process.env;
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = env.KUBERNETES_SERVICE_HOST?.trim();
  const port = env.KUBERNETES_SERVICE_PORT?.trim();
  const missing = [!host && 'KUBERNETES_SERVICE_HOST', !port && 'KUBERNETES_SERVICE_PORT'].filter(Boolean);
  if (missing.length) throw new InClusterConfigError(`in-cluster config: ${missing.join(' and ')} not set (not running in a pod?)`);
  if (!/^\d{1,5}$/.test(port!)) throw new InClusterConfigError(`in-cluster config: KUBERNETES_SERVICE_PORT "${port}" is not a port number`);

  // read once now so a missing token fails at startup, not on the first request
  readMounted(dir, 'token');
  const caData = readMounted(dir, 'ca.crt');
  if (!caData.includes('-----BEGIN ')) throw new InClusterConfigError(`in-cluster config: ${join(dir, 'ca.crt')} is not PEM`);
  const namespace = readMounted(dir, 'namespace').trim();
  return { credentials: { server: inClusterServer(host!, port!), caData, tokenFile: join(dir, 'token') }, namespace };
}
