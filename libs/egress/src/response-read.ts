// Response bodies read within a byte limit: refused on an announced
// Content-Length above it, and cut off as soon as the bytes read pass it, so
// a hostile server cannot make us buffer more than the limit plus one chunk.

/** The announced Content-Length, when it is a plain number. */
export function announcedLength(res: Response): number | undefined {
  const value = res.headers.get('content-length');
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
}

/** What the caller throws past the limit: `received` bytes read so far (0 when refused on the announced length). */
export type TooLarge = (received: number, announced: number | undefined) => Error;

/** The whole body, or `tooLarge`'s error (the body cancelled) past `limit` bytes. */
export async function readBoundedBody(res: Response, limit: number, tooLarge: TooLarge): Promise<Buffer> {
  const offered = announcedLength(res);
  if (offered !== undefined && offered > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge(0, offered);
  }
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
      throw tooLarge(received, offered);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, received);
}
