// An inbound artifact names its OCI repository as a package URL
// (`pkg:oci/app@sha256%3A…?repository_url=registry/path/app&tag=v1`) or as an
// `oci://registry/path/app:tag` URI; a Project names it as `oci://registry/path`.
// Both are reduced to one comparable form.
import { CdeventsRequestError } from './errors';
import type { OciRepositoryRef } from './types';
import { trimTrailingSlashes } from '@flotilla/oci';

/** `oci://Registry:5000/acme/shop/` → `registry:5000/acme/shop`: the form repositories are matched in. */
export function normaliseRepository(repository: string): string {
  const bare = trimTrailingSlashes(repository.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, ''));
  // registry host names are case-insensitive; repository paths are lower case by the distribution spec
  return bare.toLowerCase();
}

/** Reads `pkg:oci/…` or `oci://…`; anything else names no OCI repository (null). */
export function ociReferenceOf(id: string): OciRepositoryRef | null {
  if (id.startsWith('pkg:')) return id.toLowerCase().startsWith('pkg:oci/') ? fromPurl(id) : null;
  if (id.toLowerCase().startsWith('oci://')) return fromOciUri(id);
  return null;
}

function fromPurl(purl: string): OciRepositoryRef {
  const withoutSubpath = purl.split('#')[0];
  const [path, query = ''] = withoutSubpath.split('?', 2);
  const rest = path.slice('pkg:oci/'.length);
  const at = rest.indexOf('@');
  const name = decode(at < 0 ? rest : rest.slice(0, at), purl);
  const version = at < 0 ? undefined : decode(rest.slice(at + 1), purl);
  const qualifiers = new URLSearchParams(query);
  const repositoryUrl = qualifiers.get('repository_url');
  if (!name) throw new CdeventsRequestError(400, `package URL ${purl} has no name`);
  if (!repositoryUrl) {
    throw new CdeventsRequestError(422, `package URL ${purl} has no repository_url qualifier: add it (e.g. ?repository_url=registry.example/team/${name}) so the repository can be matched`);
  }
  let repository = normaliseRepository(repositoryUrl);
  // repository_url usually ends in the name (purl's own examples); a registry or namespace alone gets it appended
  if (repository.split('/').at(-1) !== name.toLowerCase()) repository = `${repository}/${name.toLowerCase()}`;
  if (!repository.includes('/')) throw new CdeventsRequestError(422, `package URL ${purl}: repository_url names no repository`);
  const tag = qualifiers.get('tag') ?? undefined;
  return { repository, ...(tag ? { tag } : {}), ...(version?.startsWith('sha256:') ? { digest: version } : {}) };
}

function fromOciUri(uri: string): OciRepositoryRef {
  let rest = uri.slice('oci://'.length);
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  // a tag follows the last colon after the last slash (a colon before it is the registry's port)
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  const tag = colon > slash ? rest.slice(colon + 1) : undefined;
  const repository = normaliseRepository(colon > slash ? rest.slice(0, colon) : rest);
  if (slash < 0 || !repository.includes('/')) throw new CdeventsRequestError(422, `${uri} names no repository (expected oci://registry/path)`);
  return { repository, ...(tag ? { tag } : {}), ...(digest ? { digest } : {}) };
}

function decode(s: string, purl: string): string {
  try {
    return decodeURIComponent(s);
  } catch (err) {
    throw new CdeventsRequestError(400, `package URL ${purl} is not well percent-encoded`, { cause: err });
  }
}

/** The package URL of a revision, the `artifactId` of outbound events: `pkg:oci/shop@sha256%3A…?repository_url=…&tag=…`. */
export function revisionPurl(repository: string, revision: string): string | undefined {
  const at = revision.indexOf('@');
  if (at < 0) return undefined;
  const tag = revision.slice(0, at);
  const digest = revision.slice(at + 1);
  const repo = normaliseRepository(repository);
  const name = repo.split('/').at(-1)!;
  const qualifiers = new URLSearchParams({ repository_url: repo, ...(tag ? { tag } : {}) });
  return `pkg:oci/${encodeURIComponent(name)}@${encodeURIComponent(digest)}?${qualifiers.toString()}`;
}
