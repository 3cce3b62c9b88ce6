// Receiver authentication: an HMAC-SHA256 of the body under a shared secret
// (`X-Flotilla-Signature: sha256=<hex>`), or the secret itself as a bearer
// token. Comparisons are constant-time over fixed-length digests.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-flotilla-signature';

/** The header value a sender computes: `sha256=` and the hex HMAC of the exact body bytes. */
export function signBody(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** True when the request carries a valid signature or bearer token for one of `secrets`. */
export function isAuthentic(secrets: readonly string[], body: Buffer, signature: string | undefined, authorization: string | undefined): boolean {
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  let ok = false;
  // every secret is tried, so the time taken does not tell which one matched
  for (const secret of secrets) {
    if (signature !== undefined) ok = sameDigest(signBody(secret, body), signature.trim()) || ok;
    if (bearer !== undefined) ok = sameDigest(secret, bearer) || ok;
  }
  return ok;
}

/** Compares the SHA-256 of both strings, so neither their lengths nor their contents leak through timing. */
function sameDigest(expected: string, given: string): boolean {
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}
