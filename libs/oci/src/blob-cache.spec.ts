import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { tempDir } from '../testdata/helpers';
import { BlobCache } from './blob-cache';
import { sha256Digest } from './digest';
import { DigestMismatchError } from './errors';

function blob(text: string) {
  const data = Buffer.from(text);
  return { data, digest: sha256Digest(data) };
}

/** A loader that counts calls and serves `data` slowly, in two chunks. */
function loader(data: Buffer) {
  const calls = { n: 0 };
  const load = async (): Promise<Readable> => {
    calls.n++;
    await new Promise((r) => setTimeout(r, 20));
    return Readable.from([data.subarray(0, 2), data.subarray(2)]);
  };
  return { load, calls };
}

async function read(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

describe('BlobCache', () => {
  it('stores by digest and serves hits without loading again', async () => {
    const cache = new BlobCache({ dir: await tempDir(), maxBytes: 1024 });
    const b = blob('hello');
    const { load, calls } = loader(b.data);
    expect(await read(await cache.open(b.digest, load))).toBe('hello');
    expect(await read(await cache.open(b.digest, load))).toBe('hello');
    expect(calls.n).toBe(1);
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1, entries: 1, bytes: 5 });
  });

  it('shares one download among concurrent fetches of a digest', async () => {
    const cache = new BlobCache({ dir: await tempDir(), maxBytes: 1024 });
    const b = blob('shared');
    const { load, calls } = loader(b.data);
    const paths = await Promise.all(Array.from({ length: 8 }, () => cache.fetch(b.digest, load)));
    expect(new Set(paths).size).toBe(1);
    expect(calls.n).toBe(1);
  });

  it('detects a corrupted cached blob and fetches it again', async () => {
    const cache = new BlobCache({ dir: await tempDir(), maxBytes: 1024 });
    const b = blob('pristine');
    const { load, calls } = loader(b.data);
    const path = await cache.fetch(b.digest, load);
    await writeFile(path, 'tampered');
    expect(await read(await cache.open(b.digest, load))).toBe('pristine');
    expect(calls.n).toBe(2);
    expect(cache.stats().corrupt).toBe(1);
  });

  it('keeps nothing when the loaded content does not match the digest', async () => {
    const dir = await tempDir();
    const cache = new BlobCache({ dir, maxBytes: 1024 });
    const wanted = blob('wanted');
    await expect(cache.fetch(wanted.digest, loader(Buffer.from('served')).load)).rejects.toThrow(DigestMismatchError);
    expect(await readdir(join(dir, 'blobs', 'sha256'))).toEqual([]);
    expect(await readdir(join(dir, 'tmp'))).toEqual([]);
    expect(await cache.has(wanted.digest)).toBe(false);
  });

  it('evicts the least recently used blobs beyond the size cap', async () => {
    const dir = await tempDir();
    const cache = new BlobCache({ dir, maxBytes: 25 });
    const [a, b, c] = ['aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc'].map(blob);
    await cache.fetch(a!.digest, loader(a!.data).load);
    await cache.fetch(b!.digest, loader(b!.data).load);
    await cache.fetch(a!.digest, loader(a!.data).load); // a is now more recent than b
    await cache.fetch(c!.digest, loader(c!.data).load);
    expect(await cache.has(a!.digest)).toBe(true);
    expect(await cache.has(b!.digest)).toBe(false);
    expect(await cache.has(c!.digest)).toBe(true);
    expect(cache.stats()).toMatchObject({ evicted: 1, bytes: 20 });
  });

  it('weighs blobs by bytes, not count: one large blob evicts several small ones', async () => {
    const dir = await tempDir();
    const cache = new BlobCache({ dir, maxBytes: 30 });
    const small = ['1111111111', '2222222222', '3333333333'].map(blob);
    for (const b of small) await cache.fetch(b.digest, loader(b.data).load);
    expect(cache.stats()).toMatchObject({ entries: 3, bytes: 30, evicted: 0 });
    const large = blob('L'.repeat(25));
    await cache.fetch(large.digest, loader(large.data).load);
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: 25, evicted: 3 });
    expect(await readdir(join(dir, 'blobs', 'sha256'))).toEqual([large.digest.slice('sha256:'.length)]);
  });

  it('finds blobs written by an earlier instance', async () => {
    const dir = await tempDir();
    const b = blob('persisted');
    await new BlobCache({ dir, maxBytes: 1024 }).fetch(b.digest, loader(b.data).load);
    const again = new BlobCache({ dir, maxBytes: 1024 });
    const { load, calls } = loader(b.data);
    await again.fetch(b.digest, load);
    expect(calls.n).toBe(0);
  });
});
