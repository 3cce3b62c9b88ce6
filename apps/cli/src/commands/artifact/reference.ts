// oci:// URLs from the command line, with errors that say what a good one looks like.
import { parseReference, type Reference } from '@flotilla/oci';
import { UsageError, messageOf } from '../../errors';

export function ociReference(url: string, want: { tag?: 'forbidden' | 'required' } = {}): Reference {
  if (!url.startsWith('oci://')) throw new UsageError(`"${url}" is not an oci:// URL`, 'e.g. oci://ghcr.io/acme/shop');
  let ref: Reference;
  try {
    ref = parseReference(url);
  } catch (err) {
    throw new UsageError(`"${url}" is not a valid OCI reference: ${messageOf(err)}`);
  }
  if (want.tag === 'forbidden' && (ref.tag || ref.digest)) throw new UsageError(`"${url}": give the repository without a tag or digest`, 'tags go in --tag');
  if (want.tag === 'required' && !ref.tag && !ref.digest) throw new UsageError(`"${url}": give the artifact to tag as oci://repo:tag or oci://repo@sha256:…`);
  return ref;
}
