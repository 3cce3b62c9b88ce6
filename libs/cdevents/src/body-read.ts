import type { IncomingMessage } from 'node:http';
import { CdeventsRequestError } from './errors';

/** Reads the request body, refusing (413) as soon as it passes `limit` bytes, before it is all in memory. */
export async function readBoundedBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new CdeventsRequestError(413, `body of ${declared} bytes is over the limit of ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new CdeventsRequestError(413, `body is over the limit of ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
