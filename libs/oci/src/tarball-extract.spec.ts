import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { craftTarball, snapshotTree, streamOf, tempDir, type CraftedEntry } from '../testdata/helpers';
import { UnsafeArchiveError } from './errors';
import { defaultExtractOptions, extractLayers, safeRelative } from './tarball-extract';

/** Extracts into <sandbox>/out and returns what happened plus the sandbox listing after. */
async function attempt(entries: CraftedEntry[], limits = defaultExtractOptions()) {
  const sandbox = await tempDir();
  await writeFile(join(sandbox, 'sentinel'), 'untouched');
  const target = join(sandbox, 'out');
  const error = await extractLayers([streamOf(craftTarball(entries))], target, limits).then(
    () => undefined,
    (err: unknown) => err as UnsafeArchiveError,
  );
  return { error, sandbox, target, left: await readdir(sandbox) };
}

function expectRefused(result: Awaited<ReturnType<typeof attempt>>, reason: UnsafeArchiveError['reason'], entry: string): void {
  expect(result.error).toBeInstanceOf(UnsafeArchiveError);
  expect(result.error?.reason).toBe(reason);
  expect(result.error?.entry).toBe(entry);
  expect(result.error?.message).toContain(entry);
  // Nothing written: no target, no staging dir, the sentinel intact.
  expect(result.left).toEqual(['sentinel']);
}

describe('extractLayers refuses unsafe archives and leaves nothing behind', () => {
  it('path escape with ..', async () => {
    expectRefused(await attempt([{ name: 'ok.txt', content: 'x' }, { name: '../escaped.txt', content: 'x' }]), 'path-escape', '../escaped.txt');
  });
  it('path escape hidden in the middle', async () => {
    expectRefused(await attempt([{ name: 'a/../../escaped.txt', content: 'x' }]), 'path-escape', 'a/../../escaped.txt');
  });
  it('absolute path', async () => {
    expectRefused(await attempt([{ name: '/tmp/flotilla-abs-escape', content: 'x' }]), 'absolute-path', '/tmp/flotilla-abs-escape');
    await expect(stat('/tmp/flotilla-abs-escape')).rejects.toThrow();
  });
  it('symlink pointing outside', async () => {
    expectRefused(await attempt([{ name: 'evil', type: 'symlink', linkname: '../../etc/passwd' }]), 'link-escape', 'evil');
    expectRefused(await attempt([{ name: 'abs', type: 'symlink', linkname: '/etc' }]), 'link-escape', 'abs');
  });
  it('hard link pointing outside', async () => {
    expectRefused(await attempt([{ name: 'hl', type: 'hardlink', linkname: '../x' }]), 'link-escape', 'hl');
  });
  it('device files and fifos', async () => {
    expectRefused(await attempt([{ name: 'dev', type: 'char-device' }]), 'unsupported-type', 'dev');
    expectRefused(await attempt([{ name: 'blk', type: 'block-device' }]), 'unsupported-type', 'blk');
    expectRefused(await attempt([{ name: 'fifo', type: 'fifo' }]), 'unsupported-type', 'fifo');
  });
  it('a bomb over the size cap, counted before any byte is written', async () => {
    const big = Buffer.alloc(64 * 1024, 0);
    const result = await attempt(
      [
        { name: 'a', content: big },
        { name: 'b', content: big },
      ],
      { maxBytes: 100 * 1024, maxFiles: 100 },
    );
    expectRefused(result, 'size-limit', 'b');
  });
  it('a bomb of zero blocks outside any entry', async () => {
    const sandbox = await tempDir();
    const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024));
    const err = await extractLayers([streamOf(bomb)], join(sandbox, 'out'), { maxBytes: 100 * 1024, maxFiles: 10 }).catch((e: unknown) => e);
    expect((err as UnsafeArchiveError).reason).toBe('size-limit');
    expect(await readdir(sandbox)).toEqual([]);
  });
  it('too many files', async () => {
    const entries = Array.from({ length: 6 }, (_, i) => ({ name: `f${i}`, content: 'x' }));
    expectRefused(await attempt(entries, { maxBytes: 1024, maxFiles: 5 }), 'file-limit', 'f5');
  });
  it('input that is not gzip', async () => {
    const sandbox = await tempDir();
    const err = await extractLayers([async () => Readable.from([Buffer.from('plain tar? no')])], join(sandbox, 'out')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafeArchiveError);
    expect((err as UnsafeArchiveError).reason).toBe('not-gzip');
    expect(await readdir(sandbox)).toEqual([]);
  });
  it('a corrupt header (bad checksum)', async () => {
    const tar = craftTarball([{ name: 'a.txt', content: 'x' }]);
    const raw = gunzipSync(tar);
    raw[0] = 'b'.charCodeAt(0); // name changes, checksum no longer matches
    const sandbox = await tempDir();
    const err = await extractLayers([streamOf(gzipSync(raw))], join(sandbox, 'out')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafeArchiveError);
    expect((err as UnsafeArchiveError).reason).toBe('corrupt');
    expect(await readdir(sandbox)).toEqual([]);
  });
  it('a truncated archive', async () => {
    const raw = gunzipSync(craftTarball([{ name: 'a.txt', content: Buffer.alloc(4096, 1) }]));
    const sandbox = await tempDir();
    const err = await extractLayers([streamOf(gzipSync(raw.subarray(0, 1024)))], join(sandbox, 'out')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafeArchiveError);
    expect(await readdir(sandbox)).toEqual([]);
  });
  it('an entry that needs a directory where a file was written', async () => {
    expectRefused(await attempt([{ name: 'a', content: 'x' }, { name: 'a/b', content: 'y' }]), 'corrupt', 'a/b');
  });
  it('a later layer failing removes what earlier layers wrote', async () => {
    const sandbox = await tempDir();
    const target = join(sandbox, 'out');
    const good = streamOf(craftTarball([{ name: 'good.txt', content: 'ok' }]));
    const bad = streamOf(craftTarball([{ name: '../bad', content: 'x' }]));
    await expect(extractLayers([good, bad], target)).rejects.toThrow(UnsafeArchiveError);
    expect(await readdir(sandbox)).toEqual([]);
  });
});

describe('extractLayers', () => {
  it('extracts layers in order into one tree, skipping links that stay inside', async () => {
    const sandbox = await tempDir();
    const target = join(sandbox, 'out');
    const vendor = craftTarball([{ name: '.', type: 'directory' }, { name: 'cue.mod', type: 'directory' }, { name: 'cue.mod/module.cue', content: 'module: "x"\n' }]);
    const module = craftTarball([
      { name: '.', type: 'directory' },
      { name: 'timoni.cue', content: 'a\n', mode: 0o600 },
      { name: 'templates/cm.cue', content: 'b\n' },
      { name: 'link', type: 'symlink', linkname: 'templates/cm.cue' },
      { name: 'templates/up', type: 'symlink', linkname: '../timoni.cue' },
    ]);
    const result = await extractLayers([streamOf(vendor), streamOf(module)], target);
    expect(await snapshotTree(target)).toEqual({
      'cue.mod/': '',
      'cue.mod/module.cue': 'module: "x"\n',
      'templates/': '',
      'templates/cm.cue': 'b\n',
      'timoni.cue': 'a\n',
    });
    expect(result).toMatchObject({ files: 3, directories: 1, skipped: ['link', 'templates/up'] });
    expect((await stat(join(target, 'timoni.cue'))).mode & 0o777).toBe(0o600);
  });

  it('replaces an existing target as a whole', async () => {
    const sandbox = await tempDir();
    const target = join(sandbox, 'out');
    await extractLayers([streamOf(craftTarball([{ name: 'old.txt', content: 'old' }]))], target);
    await extractLayers([streamOf(craftTarball([{ name: 'new.txt', content: 'new' }]))], target);
    expect(await snapshotTree(target)).toEqual({ 'new.txt': 'new' });
    expect(await readdir(sandbox)).toEqual(['out']);
    expect(await readFile(join(target, 'new.txt'), 'utf8')).toBe('new');
  });
});

describe('safeRelative', () => {
  it('normalises ./ prefixes and the root', () => {
    expect(safeRelative('.')).toBe('');
    expect(safeRelative('./a/b/')).toBe('a/b');
    expect(() => safeRelative('a\\..\\b')).toThrow(UnsafeArchiveError);
  });
});
