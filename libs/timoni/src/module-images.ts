// The `sh.timoni.images` annotation of a pushed module, as `timoni mod push`
// computes it: the images declared in the module's root images.cue (compiled
// on its own), sorted, unique, comma-joined. A module without images.cue
// carries no annotation, and one the user set is kept as given.
import { CueEvaluationError, type CueEngine, type FileTree } from '@flotilla/cue';
import { ANNOTATION, InvalidReferenceError, parseReference } from '@flotilla/oci';
import { ModuleImagesError, issuesFromDiagnostics } from './errors';
import type { TenantOptions } from './types';

export const IMAGES_FILE = 'images.cue';

/** Sorted, unique `repository[:tag][@digest]` references; empty without images.cue. */
export async function readModuleImages(cue: CueEngine, tree: FileTree, options: TenantOptions = {}): Promise<string[]> {
  const content = tree[IMAGES_FILE];
  if (content === undefined) return [];
  let found;
  try {
    found = await cue.moduleImages({ file: { path: IMAGES_FILE, content } }, { tenant: options.tenant });
  } catch (err) {
    if (err instanceof CueEvaluationError) throw new ModuleImagesError(issuesFromDiagnostics(err.diagnostics), { cause: err });
    throw err;
  }
  for (const image of found) {
    try {
      // go-containerregistry's grammar, which Timoni checks each reference against.
      parseReference(image.reference);
    } catch (err) {
      if (!(err instanceof InvalidReferenceError)) throw err;
      throw new ModuleImagesError([{ file: IMAGES_FILE, message: `${image.path}: invalid image reference "${image.reference}": ${err.message}` }], { cause: err });
    }
  }
  return [...new Set(found.map((i) => i.reference))].sort();
}

/** The push annotations with sh.timoni.images added when the user did not set it and the module declares images. */
export async function withImagesAnnotation(cue: CueEngine, tree: FileTree, annotations: Record<string, string>, options: TenantOptions = {}): Promise<Record<string, string>> {
  if (ANNOTATION.images in annotations) return { ...annotations };
  const images = await readModuleImages(cue, tree, options);
  return images.length > 0 ? { ...annotations, [ANNOTATION.images]: images.join(',') } : { ...annotations };
}
