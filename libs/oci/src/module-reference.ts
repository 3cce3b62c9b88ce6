// Which manifest a bundle's module reference pulls, and the digest pin check
// (Timoni's fetchBundleInstanceModule): `latest` + digest pulls by digest;
// any other version pulls the tag and, with a digest, must hash to it.
import { DigestPinMismatchError, InvalidReferenceError } from './errors';
import { LATEST_TAG } from './media-types';
import { formatReference, isValidDigest, isValidTag, parseReference } from './reference';
import type { RegistryClient, RepositoryRef } from './registry-client';
import { compareSemver, isStrictSemver } from './semver';
import type { Reference } from './types';

export interface ModuleSpec {
  /** `oci://host/repo` */
  url: string;
  /** Tag to pull; defaults to `latest`; `@sha256:…` pulls that digest. */
  version?: string;
  /** Pin: pulled by digest when the version is `latest`, otherwise checked after the pull. */
  digest?: string;
}

export interface ModulePlan {
  reference: Reference;
  /** Set when the pulled digest must equal this. */
  pin?: string;
}

export function planModulePull(spec: ModuleSpec): ModulePlan {
  const base = parseReference(spec.url);
  if (base.tag || base.digest) throw new InvalidReferenceError(spec.url, 'the module URL must not carry a tag or digest; use version/digest');
  const repo = { registry: base.registry, repository: base.repository };
  const version = spec.version && spec.version !== '' ? spec.version : LATEST_TAG;
  if (spec.digest !== undefined && !isValidDigest(spec.digest)) throw new InvalidReferenceError(spec.digest, 'digest is not sha256:<64 hex>');
  if (version.startsWith('@')) {
    const digest = version.slice(1);
    if (!isValidDigest(digest)) throw new InvalidReferenceError(version, 'digest is not sha256:<64 hex>');
    return { reference: { ...repo, digest }, pin: spec.digest };
  }
  if (!isValidTag(version)) throw new InvalidReferenceError(version, 'not a valid OCI tag');
  if (version === LATEST_TAG && spec.digest) return { reference: { ...repo, digest: spec.digest } };
  return { reference: { ...repo, tag: version }, pin: spec.digest };
}

/** Throws DigestPinMismatchError when a pin exists and differs. */
export function checkModulePin(plan: ModulePlan, pulledDigest: string): void {
  if (plan.pin && plan.pin !== pulledDigest) throw new DigestPinMismatchError(formatReference(plan.reference), plan.pin, pulledDigest);
}

export interface ModuleVersions {
  /** Strict SemVer tags, highest first. */
  versions: string[];
  /** Whether a `latest` tag exists. */
  latest: boolean;
}

/** `timoni mod list`: strict SemVer tags sorted descending, `latest` reported apart. */
export async function listModuleVersions(client: RegistryClient, repo: RepositoryRef): Promise<ModuleVersions> {
  const tags = await client.listTags(repo);
  const versions = tags.filter(isStrictSemver).sort((a, b) => compareSemver(b, a));
  return { versions, latest: tags.includes(LATEST_TAG) };
}
