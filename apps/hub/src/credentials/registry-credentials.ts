import { registryHostBinding } from './credential-binding';
import type { CredentialsService } from './credentials.service';
import type { ProjectRegistryCredentials } from '@flotilla/engine';

/** Opens a Project's stored registry credentials into the runner's shape; they open only for the registry host they were given for. */
export async function openRegistryCredentials(credentials: Pick<CredentialsService, 'reveal'>, id: string | null, sourceRepository: string): Promise<ProjectRegistryCredentials | undefined> {
  if (!id) return undefined;
  const stored = await credentials.reveal<{ username?: string; password?: string; dockerConfigJson?: string }>(id, registryHostBinding(sourceRepository));
  if (!stored) return undefined;
  if (stored.kind === 'dockerConfigJson' && stored.secret.dockerConfigJson !== undefined) return { kind: 'dockerconfigjson', config: stored.secret.dockerConfigJson };
  if (stored.kind === 'basic' && stored.secret.username !== undefined) return { kind: 'basic', username: stored.secret.username, password: stored.secret.password ?? '' };
  return undefined;
}
