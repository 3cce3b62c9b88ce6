// Pushing Timoni images: blobs first (skipped when present), the manifest under
// the first tag, further tags pointed at the same digest.
import { buildArtifactImage, buildModuleImage, type ArtifactImageOptions, type BuiltImage, type ModuleImageOptions } from './artifact-build';
import { ArtifactFormatError } from './errors';
import { LATEST_TAG } from './media-types';
import { isValidTag, parseReference } from './reference';
import type { RegistryClient, RepositoryRef } from './registry-client';
import type { Reference } from './types';

export interface PushResult {
  repository: RepositoryRef;
  digest: string;
  tags: string[];
  image: BuiltImage;
}

export async function pushImage(client: RegistryClient, repo: RepositoryRef, image: BuiltImage, tags: readonly string[]): Promise<PushResult> {
  if (tags.length === 0) throw new ArtifactFormatError(`${repo.registry}/${repo.repository}`, 'at least one tag is required');
  for (const tag of tags) {
    if (!isValidTag(tag)) throw new ArtifactFormatError(`${repo.registry}/${repo.repository}:${tag}`, `invalid OCI tag '${tag}'`);
  }
  for (const blob of [image.config, ...image.layers]) await client.pushBlob(repo, blob.data);
  const [first, ...rest] = tags;
  await client.putManifest({ ...repo, tag: first }, image.manifestBytes, image.manifest.mediaType!);
  for (const tag of rest) await client.putManifest({ ...repo, tag }, image.manifestBytes, image.manifest.mediaType!);
  return { repository: repo, digest: image.digest, tags: [...tags], image };
}

export interface PushModuleOptions extends ModuleImageOptions {
  /** Also tag the pushed digest `latest` (Timoni's default). */
  latest: boolean;
}

export function defaultPushModuleOptions(version: string): PushModuleOptions {
  return { version, annotations: {}, latest: true };
}

/** `timoni mod push <dir> oci://repo --version v [--latest]`. */
export async function pushModule(client: RegistryClient, url: string, dir: string, options: PushModuleOptions): Promise<PushResult> {
  const repo = repositoryOf(url);
  const image = await buildModuleImage(dir, options);
  return pushImage(client, repo, image, options.latest ? [options.version, LATEST_TAG] : [options.version]);
}

export interface PushArtifactOptions extends ArtifactImageOptions {
  /** At least one; the first is pushed, the others point at its digest. */
  tags: string[];
}

/** `timoni artifact push oci://repo -f <path> --tag t [--content-type c]`. */
export async function pushArtifact(client: RegistryClient, url: string, path: string, options: PushArtifactOptions): Promise<PushResult> {
  const repo = repositoryOf(url);
  const image = await buildArtifactImage(path, options);
  return pushImage(client, repo, image, options.tags);
}

function repositoryOf(url: string): RepositoryRef {
  const ref: Reference = parseReference(url);
  return { registry: ref.registry, repository: ref.repository };
}
