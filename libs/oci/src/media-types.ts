// Media types and Timoni constants (Timoni v0.33 api/v1alpha1/artifact.go, module.go).

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
export const DOCKER_MANIFEST_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';

/** Sent on every manifest request: distribution 2.8 answers 404 for OCI manifests without it. */
export const MANIFEST_ACCEPT = [OCI_MANIFEST, OCI_INDEX, DOCKER_MANIFEST, DOCKER_MANIFEST_LIST].join(', ');

export const TIMONI_CONFIG = 'application/vnd.timoni.config.v1+json';
export const TIMONI_CONTENT = 'application/vnd.timoni.content.v1.tar+gzip';
export const TIMONI_CONTENT_TYPE_ANNOTATION = 'sh.timoni.content.type';

export const CONTENT_TYPE = {
  module: 'module',
  moduleVendor: 'module/vendor',
  cueModGen: 'cue.mod/gen',
  cueModPkg: 'cue.mod/pkg',
  generic: 'generic',
  /** On pull, the empty content type selects every Timoni layer. */
  any: '',
} as const;

export const ANNOTATION = {
  version: 'org.opencontainers.image.version',
  created: 'org.opencontainers.image.created',
  source: 'org.opencontainers.image.source',
  revision: 'org.opencontainers.image.revision',
  images: 'sh.timoni.images',
} as const;

export const ARTIFACT_PREFIX = 'oci://';
export const LATEST_TAG = 'latest';
export const USER_AGENT = 'flotilla (timoni/v1 compatible)';

/**
 * The config blob go-containerregistry v0.21.9 writes for Timoni's image (empty
 * image, config media type overridden, layers appended); Timoni never reads it.
 * Measured by running that composition: diff_ids stay null.
 */
export const TIMONI_CONFIG_JSON =
  '{"architecture":"","created":"0001-01-01T00:00:00Z","os":"","rootfs":{"type":"layers","diff_ids":null},"config":{}}';
