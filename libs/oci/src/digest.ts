// sha256 digests: computing, checking, and verifying streams as they pass.
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { DigestMismatchError, InvalidReferenceError } from './errors';
import { isValidDigest } from './reference';

export function sha256Digest(data: Buffer | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

export function assertDigest(digest: string): string {
  if (!isValidDigest(digest)) throw new InvalidReferenceError(digest, 'digest is not sha256:<64 hex>');
  return digest;
}

/** The hex part of a digest, used as a file name. */
export function digestHex(digest: string): string {
  return assertDigest(digest).slice('sha256:'.length);
}

/**
 * Passes bytes through and fails the stream at its end when their sha256 or
 * length differ from what was expected, so a consumer never commits bad data.
 */
export class DigestVerifier extends Transform {
  private readonly hash: Hash = createHash('sha256');
  private seen = 0;

  constructor(
    readonly expected: string,
    private readonly what: string,
    private readonly expectedSize?: number,
  ) {
    super();
    assertDigest(expected);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.expectedSize !== undefined && this.seen > this.expectedSize) {
      done(new DigestMismatchError(this.expected, `more than ${this.expectedSize} bytes`, this.what));
      return;
    }
    this.hash.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    const actual = `sha256:${this.hash.digest('hex')}`;
    if (actual !== this.expected) done(new DigestMismatchError(this.expected, actual, this.what));
    else done();
  }
}
