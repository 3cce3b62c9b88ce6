import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { tempDir } from '../testdata/helpers';
import { sha256Digest } from './digest';
import { packPath } from './tarball-create';

/** The tree go-tar/main.go packed into testdata/go-tar/walk.tar (Timoni's walk with Go's archive/tar). */
async function goldenTree(): Promise<string> {
  const root = await tempDir();
  const long = join(root, 'l'.repeat(90));
  await mkdir(join(root, 'sub', 'deep'), { recursive: true });
  await mkdir(join(root, 'B'));
  await mkdir(long);
  await writeFile(join(root, 'a.txt'), 'hi\n');
  await writeFile(join(root, 'B', 'c'), 'y\n');
  await writeFile(join(root, 'sub', 'deep', 'z.cue'), 'x\n');
  await writeFile(join(long, 'f'.repeat(40)), 'long\n');
  await symlink('a.txt', join(root, 'link'));
  for (const d of [root, join(root, 'B'), join(root, 'sub'), join(root, 'sub', 'deep'), long]) await chmod(d, 0o755);
  for (const f of [join(root, 'a.txt'), join(root, 'sub', 'deep', 'z.cue'), join(long, 'f'.repeat(40))]) await chmod(f, 0o644);
  await chmod(join(root, 'B', 'c'), 0o600);
  return root;
}

describe('packPath', () => {
  it("writes the same tar bytes as Timoni's Go walk (root '.', lexical order, USTAR prefix, symlinks skipped)", async () => {
    const root = await goldenTree();
    const packed = await packPath(root);
    const golden = await readFile(join(__dirname, '..', 'testdata', 'go-tar', 'walk.tar'));
    expect(gunzipSync(packed.data).equals(golden)).toBe(true);
    expect(packed.entries.map((e) => e.name)).toEqual(['.', 'B', 'B/c', 'a.txt', 'l'.repeat(90), `${'l'.repeat(90)}/${'f'.repeat(40)}`, 'sub', 'sub/deep', 'sub/deep/z.cue']);
  });

  it('gives the same digest for the same directory, whatever the file times', async () => {
    const root = await goldenTree();
    const first = sha256Digest((await packPath(root)).data);
    await utimes(join(root, 'a.txt'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    await utimes(root, new Date(), new Date());
    expect(sha256Digest((await packPath(root)).data)).toBe(first);
    await writeFile(join(root, 'a.txt'), 'changed\n');
    expect(sha256Digest((await packPath(root)).data)).not.toBe(first);
  });

  it('applies ignore rules and skips fifos', async () => {
    const root = await goldenTree();
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const packed = await packPath(root, { ignore: ['sub/', '*.txt'] });
    expect(packed.entries.map((e) => e.name)).toEqual(['.', 'B', 'B/c', 'l'.repeat(90), `${'l'.repeat(90)}/${'f'.repeat(40)}`]);
  });

  it('packs a single file as one entry named by its base name', async () => {
    const root = await goldenTree();
    const packed = await packPath(join(root, 'sub', 'deep', 'z.cue'));
    expect(packed.entries).toEqual([{ name: 'z.cue', type: 'file', size: 2 }]);
  });

  it('names a missing source', async () => {
    await expect(packPath('/nonexistent/flotilla')).rejects.toThrow("packing '/nonexistent/flotilla' failed");
  });
});
