// Image reference parsing with go-containerregistry's rules (as Timoni uses them):
// `[oci://]host[:port]/repo[:tag][@sha256:…]`, Docker Hub names normalised.
import { InvalidReferenceError } from './errors';
import { ARTIFACT_PREFIX } from './media-types';
import type { Reference } from './types';

export const DOCKER_HUB = 'index.docker.io';
const DOCKER_HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/** The OCI distribution tag grammar, checked by Timoni on every tag it pushes or pulls. */
export const TAG_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
export const DIGEST_PATTERN = /^sha256:[a-f0-9]{64}$/;
const REPO_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;

export function isValidTag(tag: string): boolean {
  return TAG_PATTERN.test(tag);
}

export function isValidDigest(digest: string): boolean {
  return DIGEST_PATTERN.test(digest);
}

/** Parses a reference; without tag or digest it is left without both (callers choose a default). */
export function parseReference(input: string): Reference {
  let rest = input.startsWith(ARTIFACT_PREFIX) ? input.slice(ARTIFACT_PREFIX.length) : input;
  if (rest === '') throw new InvalidReferenceError(input, 'empty');
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!isValidDigest(digest)) throw new InvalidReferenceError(input, `digest '${digest}' is not sha256:<64 hex>`);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!isValidTag(tag)) throw new InvalidReferenceError(input, `tag '${tag}' does not match ${TAG_PATTERN}`);
  }
  const slash = rest.indexOf('/');
  const first = slash >= 0 ? rest.slice(0, slash) : '';
  let registry: string;
  let repository: string;
  if (slash >= 0 && (/[.:]/.test(first) || first === 'localhost')) {
    registry = normaliseRegistry(first);
    repository = rest.slice(slash + 1);
  } else {
    registry = DOCKER_HUB;
    repository = rest;
  }
  if (registry === DOCKER_HUB && !repository.includes('/')) repository = `library/${repository}`;
  if (repository === '' || !repository.split('/').every((c) => REPO_COMPONENT.test(c))) {
    throw new InvalidReferenceError(input, `repository '${repository}' must be lowercase path components`);
  }
  return { registry, repository, tag, digest };
}

/** Docker Hub aliases collapse to `index.docker.io`, like go-containerregistry. */
export function normaliseRegistry(host: string): string {
  const lower = host.toLowerCase();
  return DOCKER_HUB_ALIASES.has(lower) ? DOCKER_HUB : lower;
}

/** `host/repo`, as Timoni records the repository (without the `oci://` prefix). */
export function repositoryName(ref: Reference): string {
  return `${ref.registry}/${ref.repository}`;
}

/** `host/repo[:tag][@digest]`. */
export function formatReference(ref: Reference): string {
  return `${repositoryName(ref)}${ref.tag ? `:${ref.tag}` : ''}${ref.digest ? `@${ref.digest}` : ''}`;
}

/** Loopback hosts may be reached over plain HTTP without the insecure option. */
export function isLoopbackRegistry(registry: string): boolean {
  const host = registry.startsWith('[') ? registry.slice(1, registry.indexOf(']')) : registry.replace(/:\d+$/, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
