import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { defaultPushModuleOptions, pushArtifact, pushModule, RegistryClient } from '@flotilla/oci';
import { harnessEnv } from '../../harness/env';
import { WEBAPP_MODULE_DIR } from '../fixtures/projects';
import { uniqueName } from './spoke';

/** Pushes the webapp module (as `timoni mod push` would) under a repository of its own; returns its oci:// URL. */
export async function publishWebapp(registry: RegistryClient, version = '1.0.0', host = harnessEnv().registry.host): Promise<string> {
  const url = `oci://${host}/${uniqueName('e2e/modules/webapp')}`;
  await pushModule(registry, url, WEBAPP_MODULE_DIR, defaultPushModuleOptions(version));
  return url;
}

/** Pushes `files` as a Project artifact under `url:tag` (as `timoni artifact push`); returns the manifest digest. */
export async function publishProject(registry: RegistryClient, url: string, files: Record<string, string>, tag = 'latest'): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'flotilla-e2e-project-'));
  try {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    return (await pushArtifact(registry, url, dir, { tags: [tag], contentType: 'generic', annotations: {} })).digest;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function projectRepository(): string {
  return `oci://${harnessEnv().registry.host}/${uniqueName('e2e/projects/shop')}`;
}
