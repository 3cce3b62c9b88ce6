import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Keyring } from './keyring';

/** A sealed secret: which key sealed it and base64(nonce | tag | ciphertext). */
export interface Sealed {
  keyId: string;
  envelope: string;
}

export class DecryptionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DecryptionError';
  }
}

const NONCE = 12;
const TAG = 16;

/** Randomness, hashing and AES-256-GCM: the only place the hub touches node:crypto. */
/** Prefix of the keyed fingerprints; older ones (`sha256:`, unkeyed) are replaced at start. */
export const FINGERPRINT_PREFIX = 'hmac:';

export class CryptoRepository {
  private readonly fingerprintKeys = new Map<string, Buffer>();

  constructor(private readonly keyring: Keyring) {}

  get currentKeyId(): string {
    return this.keyring.current;
  }

  /** An opaque bearer token with 256 bits of randomness. */
  newToken(): string {
    return `flt_${randomBytes(32).toString('base64url')}`;
  }

  newId(): string {
    return randomUUID();
  }

  sha256Hex(value: string): string {
    return createHash('sha256').update(value).digest('hex');
  }

  /** Whether two secrets are equal, in time that does not depend on where they differ (digests make the lengths equal). */
  sameSecret(a: string, b: string): boolean {
    return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
  }

  /**
   * A short identifier of a secret that cannot be checked against guesses
   * without the hub's key: HMAC-SHA256 under a key derived from the current
   * one (so it changes when the current key does).
   */
  fingerprint(value: string): string {
    const id = this.keyring.current;
    let key = this.fingerprintKeys.get(id);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.keyring.keys.get(id)!, Buffer.alloc(0), 'flotilla/credential-fingerprint', 32));
      this.fingerprintKeys.set(id, key);
    }
    return `${FINGERPRINT_PREFIX}${createHmac('sha256', key).update(value).digest('hex').slice(0, 16)}`;
  }

  /** `aad` binds the ciphertext to its use (e.g. the credential kind): it must match to open. */
  seal(plaintext: string, aad: string): Sealed {
    const key = this.keyring.keys.get(this.keyring.current)!;
    const nonce = randomBytes(NONCE);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId: this.keyring.current, envelope: Buffer.concat([nonce, cipher.getAuthTag(), ct]).toString('base64') };
  }

  open(sealed: Sealed, aad: string): string {
    const key = this.keyring.keys.get(sealed.keyId);
    if (!key) throw new DecryptionError(`key "${sealed.keyId}" is not in the keyring: add it back to read this credential`);
    const raw = Buffer.from(sealed.envelope, 'base64');
    if (raw.length < NONCE + TAG) throw new DecryptionError('sealed value is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, NONCE));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(raw.subarray(NONCE, NONCE + TAG));
    try {
      return Buffer.concat([decipher.update(raw.subarray(NONCE + TAG)), decipher.final()]).toString('utf8');
    } catch (err) {
      throw new DecryptionError(`credential sealed with key "${sealed.keyId}" failed authentication (wrong key or tampered data)`, { cause: err });
    }
  }
}
