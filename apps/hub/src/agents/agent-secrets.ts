import { createHash, randomBytes } from 'node:crypto';

// The bootstrap tokens the hub hands to agents. Only their sha256 is stored,
// so a copy of the database is no way in; 256 random bits need no slow hash.
// From then on agents prove who they are with client certificates.

/** One-time token an operator gives a new agent (`flb_…`). */
export function newBootstrapToken(): string {
  return `flb_${randomBytes(32).toString('base64url')}`;
}

export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Only shapes we issue are worth a database look-up. */
export function looksLikeBootstrapToken(s: string): boolean {
  return /^flb_[A-Za-z0-9_-]{43}$/.test(s);
}
