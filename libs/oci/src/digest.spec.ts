import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DigestVerifier, sha256Digest } from './digest';
import { DigestMismatchError } from './errors';

async function drain(data: Buffer, verifier: DigestVerifier): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await pipeline(Readable.from([data.subarray(0, 3), data.subarray(3)]), verifier, async (src: AsyncIterable<Buffer>) => {
    for await (const c of src) chunks.push(c);
  });
  return Buffer.concat(chunks);
}

describe('DigestVerifier', () => {
  const data = Buffer.from('hello world');
  it('passes content whose digest matches', async () => {
    expect((await drain(data, new DigestVerifier(sha256Digest(data), 'x'))).equals(data)).toBe(true);
  });
  it('fails at the end when the digest differs', async () => {
    await expect(drain(data, new DigestVerifier(sha256Digest('other'), 'blob x'))).rejects.toThrow(DigestMismatchError);
  });
  it('fails as soon as more bytes than expected arrive', async () => {
    await expect(drain(data, new DigestVerifier(sha256Digest(data), 'x', 4))).rejects.toThrow(/more than 4 bytes/);
  });
});
