// Deterministic gzip tarballs of a directory, laid out like Timoni's
// BuildArtifact: a `.` root entry, then a lexical depth-first walk, regular
// files and directories only (symlinks and special files skipped), zeroed
// times, uid/gid 0, empty user/group names, fixed gzip settings.
import { lstat, readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { constants as zlibConstants, gzipSync } from 'node:zlib';
import { PackError } from './errors';
import { IgnoreRules } from './ignore-rules';
import { encodeHeader, endOfArchive, padding } from './tar-header';

export interface PackOptions {
  /** gitignore-syntax patterns (see IgnoreRules); empty packs everything. */
  ignore: readonly string[];
}

export function defaultPackOptions(): PackOptions {
  return { ignore: [] };
}

/** One packed entry, in archive order. */
export interface PackedEntry {
  name: string;
  type: 'file' | 'directory';
  size: number;
}

export interface Packed {
  /** gzip-compressed tar. */
  data: Buffer;
  entries: PackedEntry[];
}

/** Packs a directory (or a single file, as one entry named by its base name). */
export async function packPath(source: string, options: PackOptions = defaultPackOptions()): Promise<Packed> {
  const st = await lstat(source).catch((cause: unknown) => {
    throw new PackError(source, 'source does not exist or is unreadable', { cause });
  });
  const rules = new IgnoreRules(options.ignore);
  const parts: Buffer[] = [];
  const entries: PackedEntry[] = [];
  const add = async (abs: string, name: string, mode: number, isDir: boolean): Promise<void> => {
    if (isDir) {
      parts.push(encodeHeader({ name, type: 'directory', mode }));
      entries.push({ name, type: 'directory', size: 0 });
      return;
    }
    const content = await readFile(abs).catch((cause: unknown) => {
      throw new PackError(abs, 'file is unreadable', { cause });
    });
    parts.push(encodeHeader({ name, type: 'file', mode, size: content.length }), content, padding(content.length));
    entries.push({ name, type: 'file', size: content.length });
  };

  if (st.isFile()) {
    await add(source, basename(source), st.mode, false);
  } else if (st.isDirectory()) {
    await add(source, '.', st.mode, true);
    const walk = async (dir: string, rel: string): Promise<void> => {
      const names = (await readdir(dir)).sort(byteOrder);
      for (const child of names) {
        const abs = join(dir, child);
        const name = rel ? `${rel}/${child}` : child;
        const cst = await lstat(abs);
        if (!cst.isFile() && !cst.isDirectory()) continue;
        // Like Timoni, an ignored directory is not emitted but its children are still judged.
        if (!rules.ignores(name, cst.isDirectory())) await add(abs, name, cst.mode, cst.isDirectory());
        if (cst.isDirectory()) await walk(abs, name);
      }
    };
    await walk(source, '');
  } else {
    throw new PackError(source, 'source is neither a directory nor a regular file');
  }
  parts.push(endOfArchive());
  const data = gzipSync(Buffer.concat(parts), { level: 6, memLevel: 8, windowBits: 15, strategy: zlibConstants.Z_DEFAULT_STRATEGY });
  return { data, entries };
}

/** Go's filepath.Walk order: names compared as bytes. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
