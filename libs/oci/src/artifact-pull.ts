// Pulling Timoni artifacts: the manifest once (its digest is the sha256 of the
// bytes served), the config media type checked, Timoni layers fetched through
// the blob cache in manifest order and extracted safely into one tree.
import type { Readable } from 'node:stream';
import { BlobCache } from './blob-cache';
import { ArtifactFormatError } from './errors';
import { ANNOTATION, ARTIFACT_PREFIX, CONTENT_TYPE, TIMONI_CONFIG, TIMONI_CONTENT, TIMONI_CONTENT_TYPE_ANNOTATION } from './media-types';
import { formatReference, repositoryName } from './reference';
import type { CallOptions, RegistryClient } from './registry-client';
import { defaultExtractOptions, extractLayers, type ExtractOptions, type ExtractResult } from './tarball-extract';
import type { Descriptor, ImageManifest, Reference } from './types';

export interface TimoniManifest {
  reference: Reference;
  digest: string;
  manifest: ImageManifest;
}

/** Fetches and checks a Timoni manifest (config media type must be Timoni's). */
export async function fetchTimoniManifest(client: RegistryClient, ref: Reference, opts: CallOptions = {}): Promise<TimoniManifest> {
  const fetched = await client.getManifest(ref, opts);
  let manifest: ImageManifest;
  try {
    manifest = JSON.parse(fetched.bytes.toString('utf8')) as ImageManifest;
  } catch {
    // the parser's message quotes the bytes, which came from the registry
    throw new ArtifactFormatError(formatReference(ref), 'manifest is not JSON');
  }
  if (!manifest.config || !Array.isArray(manifest.layers)) {
    throw new ArtifactFormatError(formatReference(ref), `not an image manifest (media type '${fetched.mediaType}')`);
  }
  if (manifest.config.mediaType !== TIMONI_CONFIG) {
    throw new ArtifactFormatError(formatReference(ref), `unsupported artifact type '${manifest.config.mediaType}', must be '${TIMONI_CONFIG}'`);
  }
  return { reference: ref, digest: fetched.digest, manifest };
}

export interface PullOptions {
  /** Layer blobs are kept here by digest; undefined streams them without caching. */
  cache?: BlobCache;
  extract: ExtractOptions;
  /** Ends the pull's registry requests (a blob load shared through the cache ends for every waiter). */
  signal?: AbortSignal;
}

export function defaultPullOptions(): PullOptions {
  return { extract: defaultExtractOptions() };
}

export interface PulledArtifact {
  /** `oci://host/repo`, as Timoni records it. */
  repository: string;
  digest: string;
  annotations: Record<string, string>;
  layers: Descriptor[];
  extracted: ExtractResult;
}

export interface PulledModule extends PulledArtifact {
  /** The version annotation, falling back to the revision annotation (Timoni v0.13 artifacts). */
  version: string;
}

/** Module pull: every Timoni layer in manifest order (vendor then module) into `dest`. */
export async function pullModule(client: RegistryClient, ref: Reference, dest: string, options: PullOptions = defaultPullOptions()): Promise<PulledModule> {
  const pulled = await pullLayers(client, ref, dest, CONTENT_TYPE.any, options);
  const version = pulled.annotations[ANNOTATION.version] ?? pulled.annotations[ANNOTATION.revision] ?? '';
  return { ...pulled, version };
}

/** Generic pull: the Timoni layers whose content type equals `contentType` ('' = all). */
export function pullArtifact(
  client: RegistryClient,
  ref: Reference,
  dest: string,
  contentType: string = CONTENT_TYPE.any,
  options: PullOptions = defaultPullOptions(),
): Promise<PulledArtifact> {
  return pullLayers(client, ref, dest, contentType, options);
}

async function pullLayers(client: RegistryClient, ref: Reference, dest: string, contentType: string, options: PullOptions): Promise<PulledArtifact> {
  const { digest, manifest } = await fetchTimoniManifest(client, ref, { signal: options.signal });
  const layers = manifest.layers.filter(
    (l) => l.mediaType === TIMONI_CONTENT && (contentType === '' || l.annotations?.[TIMONI_CONTENT_TYPE_ANNOTATION] === contentType),
  );
  if (layers.length === 0) {
    const what = contentType ? ` and content type '${contentType}'` : '';
    throw new ArtifactFormatError(formatReference(ref), `no layer found with media type '${TIMONI_CONTENT}'${what}`);
  }
  const repo = { registry: ref.registry, repository: ref.repository };
  const sources = layers.map((layer) => (): Promise<Readable> => {
    const load = () => client.fetchBlob(repo, layer.digest, layer.size, { signal: options.signal });
    return options.cache ? options.cache.open(layer.digest, load) : load();
  });
  const extracted = await extractLayers(sources, dest, options.extract);
  return { repository: `${ARTIFACT_PREFIX}${repositoryName(ref)}`, digest, annotations: manifest.annotations ?? {}, layers, extracted };
}
