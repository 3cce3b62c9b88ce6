// Registry credentials of a reconcile (Project RFC): the Project's own, else
// the image pull secrets attached to its service account in the target
// cluster, else anonymous. A Project's own username/password or token go only
// to its source's registry host; a docker config's entries each go to the
// host they name. Modules on other registries are pulled without them.
import { createHash } from 'node:crypto';
import type { KubeObject, ObjectClient } from '@flotilla/kube';
import { credentialsFor, parseDockerConfig, parseReference, type Credentials, type CredentialSource } from '@flotilla/oci';
import { CredentialsError, messageOf } from './errors';
import type { CredentialsStore, ProjectRegistryCredentials, ProjectSpec } from './types';

const PULL_SECRET_KEYS: Record<string, string> = {
  'kubernetes.io/dockerconfigjson': '.dockerconfigjson',
  'kubernetes.io/dockercfg': '.dockercfg',
};

/**
 * A credential source from the Project's stored credentials. `boundRegistry`
 * (the source's registry host, e.g. `ghcr.io`) is the only host that receives
 * a username/password or token: a bundle naming a module on another registry
 * must not collect them.
 */
export function projectCredentialSource(creds: ProjectRegistryCredentials, boundRegistry: string): CredentialSource {
  const only = (c: Credentials): CredentialSource => (registry: string) => (registry === boundRegistry ? c : { kind: 'anonymous' });
  switch (creds.kind) {
    case 'basic':
      return only({ kind: 'basic', username: creds.username, password: creds.password });
    case 'token':
      return only({ kind: 'token', token: creds.token });
    case 'dockerconfigjson': {
      const auths = parseDockerConfig(creds.config);
      return (registry: string) => credentialsFor(auths, registry);
    }
  }
}

/** Config payloads of the service account's pull secrets, in the order it lists them; `known`: the service account, already read by this run. */
export async function pullSecretConfigs(client: ObjectClient, namespace: string, serviceAccount: string, known?: KubeObject): Promise<string[]> {
  const where = `ServiceAccount/${namespace}/${serviceAccount}`;
  let sa = known;
  try {
    sa ??= await client.getOptional({ apiVersion: 'v1', kind: 'ServiceAccount', namespace, name: serviceAccount });
  } catch (err) {
    throw new CredentialsError(`${where}: cannot read it for image pull secrets: ${messageOf(err)}`, { cause: err });
  }
  if (!sa) return [];
  const refs = ((sa.imagePullSecrets ?? []) as Array<{ name?: string }>).map((r) => r.name).filter((n): n is string => !!n);
  const configs: string[] = [];
  for (const name of refs) {
    let secret;
    try {
      secret = await client.getOptional({ apiVersion: 'v1', kind: 'Secret', namespace, name });
    } catch (err) {
      throw new CredentialsError(`${where}: cannot read image pull secret ${name}: ${messageOf(err)}`, { cause: err });
    }
    // A missing pull secret is skipped, as the kubelet does.
    const key = secret ? PULL_SECRET_KEYS[String(secret.type)] : undefined;
    const data = key ? ((secret!.data ?? {}) as Record<string, string>)[key] : undefined;
    if (data) configs.push(Buffer.from(data, 'base64').toString('utf8'));
  }
  return configs;
}

/** For each registry host, the first pull secret with credentials for it wins. */
export function pullSecretCredentialSource(configs: readonly string[], where = 'image pull secret'): CredentialSource {
  const parsed = configs.map((c) => {
    try {
      return parseDockerConfig(c);
    } catch (err) {
      throw new CredentialsError(`${where}: ${messageOf(err)}`, { cause: err });
    }
  });
  return (registry: string): Credentials => {
    for (const auths of parsed) {
      const creds = credentialsFor(auths, registry);
      if (creds.kind !== 'anonymous') return creds;
    }
    return { kind: 'anonymous' };
  };
}

export interface ResolvedCredentials {
  source: CredentialSource;
  /** sha256 over what the credentials were made from: equal fingerprints may share a registry client */
  fingerprint: string;
}

const fingerprint = (kind: string, data: unknown) => `${kind}:${createHash('sha256').update(JSON.stringify(data)).digest('hex')}`;

/** The credentials of one reconcile; `client` reads the service account (the caller's own identity) unless the run already did (`serviceAccount`). */
export async function resolveRegistryCredentials(project: ProjectSpec, store: CredentialsStore | undefined, client: ObjectClient, serviceAccount?: KubeObject): Promise<ResolvedCredentials> {
  let own: ProjectRegistryCredentials | undefined;
  try {
    own = await store?.registryCredentials(project);
  } catch (err) {
    throw new CredentialsError(`project ${project.namespace}/${project.name}: registry credentials: ${messageOf(err)}`, { cause: err });
  }
  if (own) {
    try {
      return { source: projectCredentialSource(own, parseReference(project.source.repository).registry), fingerprint: fingerprint('project', own) };
    } catch (err) {
      throw new CredentialsError(`project ${project.namespace}/${project.name}: registry credentials: ${messageOf(err)}`, { cause: err });
    }
  }
  const configs = await pullSecretConfigs(client, project.namespace, project.serviceAccountName, serviceAccount);
  if (configs.length === 0) return { source: { kind: 'anonymous' }, fingerprint: 'anonymous' };
  return { source: pullSecretCredentialSource(configs, `ServiceAccount/${project.namespace}/${project.serviceAccountName}`), fingerprint: fingerprint('pull-secrets', configs) };
}
