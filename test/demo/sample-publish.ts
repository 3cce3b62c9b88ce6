import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPushModuleOptions, pushArtifact, pushModule, RegistryClient } from '@flotilla/oci';
import type { RegistryEndpoint } from '../harness/types';
import { SAMPLE_DIR } from './demo-paths';

export const MODULE_VERSION = '1.0.0';

export interface PublishedSample {
  /** oci:// URL of the Project artifact */
  repository: string;
  tag: string;
  digest: string;
}

/**
 * Pushes the sample module (as `timoni mod push`) and the sample Project
 * (as `timoni artifact push`), its bundle pointing at that module, to the
 * demo's registry.
 */
export async function publishSample(registry: RegistryEndpoint, workDir: string): Promise<PublishedSample> {
  const client = new RegistryClient();
  const moduleUrl = `oci://${registry.host}/demo/modules/hello`;
  await pushModule(client, moduleUrl, join(SAMPLE_DIR, 'module'), defaultPushModuleOptions(MODULE_VERSION));
  const dir = mkdtempSync(join(workDir, 'project-'));
  try {
    cpSync(join(SAMPLE_DIR, 'project'), dir, { recursive: true });
    const bundle = join(dir, 'bundle.cue');
    writeFileSync(bundle, readFileSync(bundle, 'utf8').replace('"MODULE_URL"', JSON.stringify(moduleUrl)));
    const repository = `oci://${registry.host}/demo/projects/hello`;
    const tag = 'latest';
    const { digest } = await pushArtifact(client, repository, dir, { tags: [tag], contentType: 'generic', annotations: {} });
    return { repository, tag, digest };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
