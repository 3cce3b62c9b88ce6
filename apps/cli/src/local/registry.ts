// A registry client with the user's credentials, as `timoni` finds them:
// --creds first, else the Docker config (DOCKER_CONFIG or ~/.docker/config.json).
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { credentialsFromFlag, dockerConfigCredentials, RegistryClient } from '@flotilla/oci';

export interface RegistryFlags {
  creds?: string;
  insecure?: boolean;
}

export function registryClient(flags: RegistryFlags, env: NodeJS.ProcessEnv): RegistryClient {
  const insecure = Boolean(flags.insecure);
  if (flags.creds) return new RegistryClient({ credentials: credentialsFromFlag(flags.creds), insecure });
  const file = join(env.DOCKER_CONFIG || join(env.HOME || homedir(), '.docker'), 'config.json');
  if (existsSync(file)) return new RegistryClient({ credentials: dockerConfigCredentials(readFileSync(file)), insecure });
  return new RegistryClient({ insecure });
}

export function registryOptions<T extends { option: (flags: string, description: string) => T }>(cmd: T): T {
  return cmd.option('--creds <user:password>', 'registry credentials (default: the Docker config)').option('--insecure', 'allow plain HTTP to a registry that is not on loopback');
}
