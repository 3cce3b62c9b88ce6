// Public surface of @flotilla/oci: an OCI distribution client, Timoni's
// artifact formats (push and pull), a content-addressed blob cache and safe
// extraction.

export type { Credentials, CredentialSource, Descriptor, FetchedManifest, ImageIndex, ImageManifest, Reference } from './types';
export * from './errors';
export * from './media-types';

export { parseReference, formatReference, repositoryName, isValidTag, isValidDigest, isLoopbackRegistry, TAG_PATTERN, DOCKER_HUB } from './reference';
export { sha256Digest, DigestVerifier } from './digest';
export { trimTrailingSlashes } from './trailing-slashes';
export { dockerConfigCredentials, parseDockerConfig, credentialsFor, credentialsFromFlag } from './docker-config';

export { RegistryClient, defaultRegistryClientOptions } from './registry-client';
export type { CallOptions, RegistryClientOptions, RepositoryRef } from './registry-client';

export { BlobCache, defaultBlobCacheOptions } from './blob-cache';
export type { BlobCacheOptions, BlobCacheStats } from './blob-cache';

export { packPath, defaultPackOptions } from './tarball-create';
export type { PackOptions, Packed, PackedEntry } from './tarball-create';
export { extractLayers, defaultExtractOptions } from './tarball-extract';
export type { ExtractOptions, ExtractResult } from './tarball-extract';
export { IgnoreRules, parseIgnoreFile } from './ignore-rules';

export { buildModuleImage, buildArtifactImage, readIgnorePatterns, defaultModuleImageOptions, defaultArtifactImageOptions, IGNORE_FILE } from './artifact-build';
export type { BuiltImage, BuiltLayer, ModuleImageOptions, ArtifactImageOptions } from './artifact-build';
export { pushImage, pushModule, pushArtifact, defaultPushModuleOptions } from './artifact-push';
export type { PushResult, PushModuleOptions, PushArtifactOptions } from './artifact-push';
export { fetchTimoniManifest, pullModule, pullArtifact, defaultPullOptions } from './artifact-pull';
export type { TimoniManifest, PullOptions, PulledArtifact, PulledModule } from './artifact-pull';
export { planModulePull, checkModulePin, listModuleVersions } from './module-reference';
export type { ModuleSpec, ModulePlan, ModuleVersions } from './module-reference';
export { isStrictSemver, isModuleVersion, compareSemver } from './semver';
