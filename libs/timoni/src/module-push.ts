// `timoni mod push`: libs/oci packs and pushes the module; this adds what
// needs CUE, the sh.timoni.images annotation read from images.cue.
import { readFileTree, type CueEngine } from '@flotilla/cue';
import { pushModule, type PushModuleOptions, type PushResult, type RegistryClient } from '@flotilla/oci';
import { withImagesAnnotation } from './module-images';
import type { TenantOptions } from './types';

export async function pushTimoniModule(
  cue: CueEngine,
  client: RegistryClient,
  url: string,
  dir: string,
  options: PushModuleOptions,
  tenant: TenantOptions = {},
): Promise<PushResult> {
  const annotations = await withImagesAnnotation(cue, readFileTree(dir), options.annotations, tenant);
  return pushModule(client, url, dir, { ...options, annotations });
}
