// Safe extraction of gzip tarballs (Timoni's layers). Refused, each with an
// UnsafeArchiveError naming the entry: input that is not gzip, absolute paths,
// `..`, links pointing outside the tree, devices and fifos, more bytes or
// files than allowed. Links that stay inside are skipped, as Timoni does.
// Layers are written into a fresh staging directory that is renamed onto the
// target only when every layer succeeded, so a refusal leaves nothing behind.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, posix, resolve, sep } from 'node:path';
import { once } from 'node:events';
import { type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { Parser as TarParser, ReadEntry } from 'tar';
import { UnsafeArchiveError } from './errors';
import { trimTrailingSlashes } from './trailing-slashes';

export interface ExtractOptions {
  /** Sum of entry sizes allowed over all layers (Timoni: 100 MiB). */
  maxBytes: number;
  /** Entries allowed over all layers. */
  maxFiles: number;
}

export function defaultExtractOptions(): ExtractOptions {
  return { maxBytes: 100 * 1024 * 1024, maxFiles: 10_000 };
}

export interface ExtractResult {
  files: number;
  directories: number;
  bytes: number;
  /** Entries skipped: links that stay inside the tree. */
  skipped: string[];
}

/**
 * Extracts layers in order into `target`, which must not exist yet or is
 * replaced as a whole. Each source is opened only when its turn comes.
 */
export async function extractLayers(
  sources: readonly (() => Promise<Readable>)[],
  target: string,
  options: ExtractOptions = defaultExtractOptions(),
): Promise<ExtractResult> {
  const parent = dirname(resolve(target));
  await mkdir(parent, { recursive: true });
  const staging = await mkdtemp(join(parent, `.${basename(target)}.extract-`));
  const result: ExtractResult = { files: 0, directories: 0, bytes: 0, skipped: [] };
  try {
    for (const open of sources) await extractInto(await open(), staging, options, result);
    const old = await stat(target).then(() => `${staging}.old`, () => undefined);
    if (old) await rename(target, old);
    await rename(staging, target);
    if (old) await rm(old, { recursive: true, force: true });
    return result;
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
}

/** Extracts one gzip tarball into `root` (an existing directory this code created). */
export async function extractInto(source: Readable, root: string, options: ExtractOptions, totals: ExtractResult): Promise<void> {
  const parser = new (tarParser())({ strict: true });
  let failure: Error | undefined;
  const fail = (err: Error): void => {
    failure ??= err;
  };
  parser.on('entry', (entry: ReadEntry) => {
    if (failure) {
      entry.resume();
      return;
    }
    try {
      writeEntry(entry, root, options, totals, fail);
    } catch (err) {
      // File system refusals (a file where a directory must go, …) are named like the rest.
      fail(err instanceof UnsafeArchiveError ? err : new UnsafeArchiveError(entry.path, 'corrupt', (err as Error).message, { cause: err }));
      entry.resume();
    }
  });
  parser.on('error', (err: Error) => fail(new UnsafeArchiveError('(archive)', 'corrupt', err.message, { cause: err })));
  // Settles on end or error; a parser error is already recorded as the failure.
  const done = new Promise<void>((resolve) => {
    parser.on('end', () => resolve());
    parser.on('error', () => resolve());
  });

  const gunzip = createGunzip();
  let first = true;
  // Headers and padding cost at most ~1 KiB per entry; anything beyond is a bomb hiding outside entries.
  const maxInflated = options.maxBytes + 1024 * (options.maxFiles + 2);
  let inflated = 0;
  source.on('error', (err) => gunzip.destroy(err));
  source.pipe(gunzip);
  try {
    for await (const chunk of gunzip) {
      if (failure) break;
      inflated += (chunk as Buffer).length;
      if (inflated > maxInflated) {
        fail(new UnsafeArchiveError('(archive)', 'size-limit', `decompresses to more than ${maxInflated} bytes`));
        break;
      }
      if (!parser.write(chunk as Buffer)) await once(parser, 'drain');
      first = false;
    }
  } catch (err) {
    // zlib's verdict on the very first bytes: the gzip magic number is missing.
    const notGzip = first && /incorrect header check/.test((err as Error).message);
    if (notGzip) throw new UnsafeArchiveError('(archive)', 'not-gzip', 'content is not gzip-compressed', { cause: err });
    throw failure ?? new UnsafeArchiveError('(archive)', 'corrupt', (err as Error).message, { cause: err });
  } finally {
    source.unpipe(gunzip);
  }
  if (failure) {
    source.destroy();
    gunzip.destroy();
    throw failure;
  }
  parser.end();
  await done;
  if (failure) throw failure;
}

function writeEntry(entry: ReadEntry, root: string, options: ExtractOptions, totals: ExtractResult, fail: (err: Error) => void): void {
  const name = entry.path;
  const rel = safeRelative(name);
  totals.bytes += entry.size;
  if (totals.bytes > options.maxBytes) {
    throw new UnsafeArchiveError(name, 'size-limit', `archive holds more than ${options.maxBytes} bytes`);
  }
  if (rel !== '' && totals.files + totals.directories + totals.skipped.length >= options.maxFiles) {
    throw new UnsafeArchiveError(name, 'file-limit', `archive holds more than ${options.maxFiles} entries`);
  }
  const abs = rel === '' ? root : join(root, rel);
  if (abs !== root && !abs.startsWith(root + sep)) throw new UnsafeArchiveError(name, 'path-escape', 'resolves outside the target');
  switch (entry.type) {
    case 'Directory':
      if (rel !== '') totals.directories++;
      mkdirSync(abs, { recursive: true, mode: 0o755 });
      entry.resume();
      return;
    case 'File':
    case 'OldFile':
    case 'ContiguousFile': {
      totals.files++;
      mkdirSync(dirname(abs), { recursive: true, mode: 0o755 });
      const fd = openSync(abs, 'w', (entry.mode ?? 0o644) & 0o777);
      let open = true;
      entry.on('data', (chunk: Buffer) => {
        if (!open) return;
        try {
          writeSync(fd, chunk);
        } catch (err) {
          open = false;
          closeSync(fd);
          fail(new UnsafeArchiveError(name, 'corrupt', `writing failed: ${(err as Error).message}`, { cause: err }));
        }
      });
      entry.on('end', () => {
        if (open) closeSync(fd);
        open = false;
      });
      return;
    }
    case 'SymbolicLink':
    case 'Link': {
      const target = entry.linkpath ?? '';
      // Symlink targets are relative to the link's directory, hard links to the archive root.
      const base = entry.type === 'SymbolicLink' ? posix.dirname(rel) : '.';
      if (target === '' || target.startsWith('/') || escapes(posix.join(base, target))) {
        throw new UnsafeArchiveError(name, 'link-escape', `link target '${target}' is outside the archive`);
      }
      totals.skipped.push(name);
      entry.resume();
      return;
    }
    default:
      throw new UnsafeArchiveError(name, 'unsupported-type', `entry type ${entry.type} is not allowed`);
  }
}

/** The entry's path relative to the root ('' for the root), refusing absolute and `..` paths. */
export function safeRelative(name: string): string {
  if (name === '' || name.includes('\0') || name.includes('\\')) {
    throw new UnsafeArchiveError(name, 'path-escape', 'empty name or name with NUL or backslash');
  }
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new UnsafeArchiveError(name, 'absolute-path', 'absolute paths are not allowed');
  if (name.split('/').includes('..')) throw new UnsafeArchiveError(name, 'path-escape', "'..' is not allowed");
  const normal = trimTrailingSlashes(posix.normalize(name));
  return normal === '.' ? '' : normal.replace(/^\.\//, '');
}

function escapes(path: string): boolean {
  const normal = posix.normalize(path);
  return normal === '..' || normal.startsWith('../');
}

// tar takes a few milliseconds to load; CLI commands that never pull (a local
// `project build`) should not pay for it at start.
let parserClass: typeof TarParser | undefined;
function tarParser(): typeof TarParser {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (parserClass ??= (require('tar') as { Parser: typeof TarParser }).Parser);
}
