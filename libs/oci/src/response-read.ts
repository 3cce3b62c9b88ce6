// Response bodies read within a byte limit: refused on an announced
// Content-Length above it, and cut off as soon as the bytes read pass it, so
// a hostile registry cannot make us buffer more than the limit plus one chunk.
import { Transform, type TransformCallback } from 'node:stream';
import { ContentTooLargeError } from './errors';

/** The announced Content-Length, when it is a plain number. */
export function announcedLength(res: Response): number | undefined {
  const value = res.headers.get('content-length');
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
}

/** Refuses early, before reading, when the announced length is above the limit. */
export async function refuseAnnouncedOver(res: Response, limit: number, what: string): Promise<void> {
  const offered = announcedLength(res);
  if (offered !== undefined && offered > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw new ContentTooLargeError(what, limit, offered, 0);
  }
}

/** The whole body, or ContentTooLargeError (the body cancelled) past `limit` bytes. */
export async function readLimited(res: Response, limit: number, what: string): Promise<Buffer> {
  await refuseAnnouncedOver(res, limit, what);
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      await reader.cancel().catch(() => undefined);
      throw new ContentTooLargeError(what, limit, announcedLength(res), received);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, received);
}

/** Passes at most `limit` bytes, then fails the stream with ContentTooLargeError. */
export class ByteLimit extends Transform {
  private seen = 0;

  constructor(
    private readonly limit: number,
    private readonly what: string,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) done(new ContentTooLargeError(this.what, this.limit, undefined, this.seen));
    else done(null, chunk);
  }
}
