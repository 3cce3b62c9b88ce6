// Registry response bodies read within a byte limit (libs/egress reads them),
// failing with the registry client's own error.
import { Transform, type TransformCallback } from 'node:stream';
import { announcedLength, readBoundedBody } from '@flotilla/egress';
import { ContentTooLargeError } from './errors';

/** Refuses early, before reading, when the announced length is above the limit. */
export async function refuseAnnouncedOver(res: Response, limit: number, what: string): Promise<void> {
  const offered = announcedLength(res);
  if (offered !== undefined && offered > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw new ContentTooLargeError(what, limit, offered, 0);
  }
}

/** The whole body, or ContentTooLargeError (the body cancelled) past `limit` bytes. */
export function readLimited(res: Response, limit: number, what: string): Promise<Buffer> {
  return readBoundedBody(res, limit, (received, offered) => new ContentTooLargeError(what, limit, offered, received));
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
