// What a stored credential is bound to: the one place its secret may go. The
// binding is part of the sealed value's associated data, so a credential
// opens only for the endpoint it was given for (see CredentialsRepository).
import { parseReference } from '@flotilla/oci';

/** A push cluster's credentials go to its API server URL only. */
export function clusterServerBinding(server: string): string {
  return `cluster-server ${server}`;
}

/** A Project's registry credentials go to its source's registry host only (e.g. `ghcr.io`, `127.0.0.1:5000`). */
export function registryHostBinding(sourceRepository: string): string {
  return `registry-host ${registryHostOf(sourceRepository)}`;
}

/** The registry host of `oci://host/repo`, normalised as the registry client does. */
export function registryHostOf(sourceRepository: string): string {
  return parseReference(sourceRepository).registry;
}

/** The agent CA's private key never leaves the hub. */
export const AGENT_CA_BINDING = 'agent-ca';

/** A credential whose owner row is gone: it opens for nothing. */
export const ORPHAN_BINDING = 'orphan';

/** The associated data of a sealed credential: its row, kind and binding. */
export function credentialAad(id: string, kind: string, binding: string): string {
  return JSON.stringify(['flotilla/credential/v2', id, kind, binding]);
}

/** The associated data credentials were sealed with before they were bound (re-sealed at start). */
export function legacyCredentialAad(kind: string): string {
  return `flotilla/credential/${kind}`;
}

/** Refused: a credential opened for another endpoint than the one it is bound to, or copied to another row. */
export class CredentialBindingError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CredentialBindingError';
  }
}
