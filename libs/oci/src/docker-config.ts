// Credentials from Docker `config.json` content, which is also the payload of
// `kubernetes.io/dockerconfigjson` pull secrets (and `.dockercfg`, auths at top level).
import { AuthError } from './errors';
import { normaliseRegistry } from './reference';
import type { Credentials } from './types';

interface AuthEntry {
  auth?: string;
  username?: string;
  password?: string;
  identitytoken?: string;
  registrytoken?: string;
}

/** Parsed `auths`, keyed by normalised registry host. */
export type DockerAuths = Map<string, AuthEntry>;

/** Parses config.json content; throws AuthError naming the problem on malformed input. */
export function parseDockerConfig(content: string | Buffer): DockerAuths {
  let doc: unknown;
  try {
    doc = JSON.parse(content.toString());
  } catch (cause) {
    throw new AuthError('docker config', 'config.json content is not valid JSON', { cause });
  }
  if (typeof doc !== 'object' || doc === null) throw new AuthError('docker config', 'config.json is not an object');
  const record = doc as Record<string, unknown>;
  const auths = (typeof record.auths === 'object' && record.auths !== null ? record.auths : record) as Record<string, unknown>;
  const result: DockerAuths = new Map();
  for (const [key, value] of Object.entries(auths)) {
    if (typeof value !== 'object' || value === null) continue;
    const host = registryHostOf(key);
    if (host && !result.has(host)) result.set(host, value as AuthEntry);
  }
  return result;
}

/** `https://index.docker.io/v1/` → `index.docker.io`; `127.0.0.1:5000` stays. */
export function registryHostOf(key: string): string {
  let host = key.trim().replace(/^[a-z]+:\/\//i, '');
  host = host.split('/')[0] ?? '';
  return host ? normaliseRegistry(host) : '';
}

/** Credentials for one registry host, anonymous when the config has none. */
export function credentialsFor(auths: DockerAuths, registry: string): Credentials {
  const entry = auths.get(normaliseRegistry(registry));
  if (!entry) return { kind: 'anonymous' };
  if (entry.registrytoken) return { kind: 'token', token: entry.registrytoken };
  let { username, password } = entry;
  if (entry.auth) {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new AuthError(registry, "docker config 'auth' is not base64 of user:password");
    username = decoded.slice(0, colon);
    password = decoded.slice(colon + 1);
  }
  if (entry.identitytoken) return { kind: 'identityToken', token: entry.identitytoken, username };
  if (username !== undefined && password !== undefined && (username !== '' || password !== '')) {
    return { kind: 'basic', username, password };
  }
  return { kind: 'anonymous' };
}

/** A credential source for RegistryClient from config.json content. */
export function dockerConfigCredentials(content: string | Buffer): (registry: string) => Credentials {
  const auths = parseDockerConfig(content);
  return (registry) => credentialsFor(auths, registry);
}

/** Timoni `--creds`: `user:password` is basic auth, a value without a colon a bearer token. */
export function credentialsFromFlag(creds: string): Credentials {
  const colon = creds.indexOf(':');
  return colon < 0 ? { kind: 'token', token: creds } : { kind: 'basic', username: creds.slice(0, colon), password: creds.slice(colon + 1) };
}
