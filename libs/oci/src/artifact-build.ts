// Timoni artifact images in memory: module images (vendor layer then module
// layer) as `timoni mod push` builds them, and generic single-layer artifacts
// as `timoni artifact push` does.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Digest } from './digest';
import { ArtifactFormatError, PackError } from './errors';
import { VENDOR_LAYER_PATTERNS, moduleLayerPatterns, parseIgnoreFile } from './ignore-rules';
import { encodeManifest } from './manifest-json';
import {
  ANNOTATION,
  CONTENT_TYPE,
  OCI_MANIFEST,
  TIMONI_CONFIG,
  TIMONI_CONFIG_JSON,
  TIMONI_CONTENT,
  TIMONI_CONTENT_TYPE_ANNOTATION,
} from './media-types';
import { isModuleVersion } from './semver';
import { packPath } from './tarball-create';
import type { Descriptor, ImageManifest } from './types';

export const IGNORE_FILE = 'timoni.ignore';

export interface BuiltLayer {
  descriptor: Descriptor;
  data: Buffer;
}

export interface BuiltImage {
  manifest: ImageManifest;
  /** The manifest bytes pushed; `digest` is their sha256. */
  manifestBytes: Buffer;
  digest: string;
  config: BuiltLayer;
  layers: BuiltLayer[];
}

export interface ModuleImageOptions {
  /** Strict SemVer without `v` prefix or `+build`; becomes the version annotation and the tag. */
  version: string;
  /** Manifest annotations; the version annotation is always overwritten. */
  annotations: Record<string, string>;
  /** Ignore patterns; undefined reads `<dir>/timoni.ignore` when present. */
  ignore?: readonly string[];
}

export function defaultModuleImageOptions(version: string): ModuleImageOptions {
  return { version, annotations: {} };
}

export interface ArtifactImageOptions {
  /** `sh.timoni.content.type` of the single layer. */
  contentType: string;
  annotations: Record<string, string>;
  /** Ignore patterns; undefined reads `timoni.ignore` from the directory when present. */
  ignore?: readonly string[];
}

export function defaultArtifactImageOptions(): ArtifactImageOptions {
  return { contentType: CONTENT_TYPE.generic, annotations: {} };
}

/** Reads `timoni.ignore` from a directory; no file means no patterns. */
export async function readIgnorePatterns(dir: string): Promise<string[]> {
  try {
    return parseIgnoreFile(await readFile(join(dir, IGNORE_FILE), 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new PackError(join(dir, IGNORE_FILE), 'unreadable', { cause: err });
  }
}

export async function buildModuleImage(dir: string, options: ModuleImageOptions): Promise<BuiltImage> {
  if (!isModuleVersion(options.version)) {
    throw new ArtifactFormatError(dir, `version '${options.version}' is not strict SemVer without build metadata`);
  }
  const patterns = options.ignore ?? (await readIgnorePatterns(dir));
  const vendor = await packPath(dir, { ignore: VENDOR_LAYER_PATTERNS });
  const module = await packPath(dir, { ignore: moduleLayerPatterns(patterns) });
  const annotations = { ...options.annotations, [ANNOTATION.version]: options.version };
  return assemble(
    [
      { data: vendor.data, contentType: CONTENT_TYPE.moduleVendor },
      { data: module.data, contentType: CONTENT_TYPE.module },
    ],
    annotations,
  );
}

/** A directory (tar of its contents) or a single file (one entry named by its base name). */
export async function buildArtifactImage(path: string, options: ArtifactImageOptions): Promise<BuiltImage> {
  const patterns = options.ignore ?? (await readIgnorePatterns(path));
  const packed = await packPath(path, { ignore: patterns });
  return assemble([{ data: packed.data, contentType: options.contentType }], { ...options.annotations });
}

function assemble(layers: { data: Buffer; contentType: string }[], annotations: Record<string, string>): BuiltImage {
  const configData = Buffer.from(TIMONI_CONFIG_JSON);
  const config: BuiltLayer = {
    descriptor: { mediaType: TIMONI_CONFIG, size: configData.length, digest: sha256Digest(configData) },
    data: configData,
  };
  const built = layers.map(
    ({ data, contentType }): BuiltLayer => ({
      descriptor: {
        mediaType: TIMONI_CONTENT,
        size: data.length,
        digest: sha256Digest(data),
        annotations: { [TIMONI_CONTENT_TYPE_ANNOTATION]: contentType },
      },
      data,
    }),
  );
  const manifest: ImageManifest = {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    config: config.descriptor,
    layers: built.map((l) => l.descriptor),
    annotations,
  };
  const manifestBytes = encodeManifest(manifest);
  return { manifest, manifestBytes, digest: sha256Digest(manifestBytes), config, layers: built };
}
