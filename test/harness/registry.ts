import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDebianPackage } from './apt';
import { freePort } from './ports';
import { spawnLogged, stopProcess, waitUntil } from './process';
import type { RegistryEndpoint, RunningService } from './types';

const REGISTRY_BIN = '/usr/bin/docker-registry';

export interface RegistryOptions {
  /** when set, the registry requires these credentials (htpasswd, bcrypt) */
  basicAuth?: { username: string; password: string };
}

/** Starts Debian's docker-registry (distribution 2.8) with filesystem storage in workDir. */
export async function startRegistry(
  workDir: string,
  name: string,
  options: RegistryOptions = {},
): Promise<RunningService<RegistryEndpoint>> {
  ensureDebianPackage('docker-registry', REGISTRY_BIN);
  const dir = join(workDir, name);
  mkdirSync(join(dir, 'storage'), { recursive: true });
  const port = await freePort();
  const logFile = join(workDir, `${name}.log`);

  let auth = '';
  if (options.basicAuth) {
    ensureDebianPackage('apache2-utils', '/usr/bin/htpasswd');
    const { username, password } = options.basicAuth;
    const line = execFileSync('htpasswd', ['-Bbn', username, password]).toString().trim();
    writeFileSync(join(dir, 'htpasswd'), `${line}\n`);
    auth = `auth:\n  htpasswd:\n    realm: flotilla-test\n    path: ${join(dir, 'htpasswd')}\n`;
  }
  const config =
    `version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: ${join(dir, 'storage')}\n` +
    `  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:${port}\n${auth}`;
  const configFile = join(dir, 'config.yml');
  writeFileSync(configFile, config);

  const child = spawnLogged(REGISTRY_BIN, ['serve', configFile], logFile);
  const endpoint: RegistryEndpoint = {
    host: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}`,
    ...options.basicAuth,
  };
  // /v2/ answers 200, or 401 when auth is on: either way the registry is serving.
  await waitUntil(name, child, logFile, async () => {
    const res = await fetch(`${endpoint.url}/v2/`);
    return res.status === 200 || res.status === 401;
  });
  return { endpoint, logFile, stop: () => stopProcess(child) };
}
