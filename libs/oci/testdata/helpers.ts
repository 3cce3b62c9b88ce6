// Shared by the libs/oci specs: temp dirs, crafted tarballs, registry endpoints.
import { randomBytes } from 'node:crypto';
import { lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { harnessEnv } from '../../../test/harness/env';
import type { RegistryEndpoint } from '../../../test/harness/types';
import { encodeHeader, endOfArchive, padding, type TarType } from '../src/tar-header';

const made: string[] = [];

/** A fresh temp dir, removed after the spec file that asked for it. */
export async function tempDir(prefix = 'flotilla-oci-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

export interface CraftedEntry {
  name: string;
  type?: TarType;
  content?: string | Buffer;
  /** Header size when it should differ from the content (bombs). */
  size?: number;
  linkname?: string;
  mode?: number;
}

/** A gzip tarball with exactly these entries, for extraction tests. */
export function craftTarball(entries: CraftedEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const type = e.type ?? 'file';
    const content = typeof e.content === 'string' ? Buffer.from(e.content) : (e.content ?? Buffer.alloc(0));
    parts.push(encodeHeader({ name: e.name, type, mode: e.mode ?? (type === 'directory' ? 0o755 : 0o644), size: e.size ?? content.length, linkname: e.linkname }));
    if (type === 'file') parts.push(content, padding(content.length));
  }
  parts.push(endOfArchive());
  return gzipSync(Buffer.concat(parts));
}

export function streamOf(data: Buffer): () => Promise<Readable> {
  return async () => Readable.from([data]);
}

/** Every path under dir (relative, sorted) with file contents, for tree comparisons. */
export async function snapshotTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const name of (await readdir(abs)).sort()) {
      const childAbs = join(abs, name);
      const childRel = rel ? `${rel}/${name}` : name;
      const st = await lstat(childAbs);
      if (st.isDirectory()) {
        out[`${childRel}/`] = '';
        await walk(childAbs, childRel);
      } else if (st.isSymbolicLink()) {
        out[childRel] = '<symlink>';
      } else {
        out[childRel] = await readFile(childAbs, 'utf8');
      }
    }
  };
  await walk(dir, '');
  return out;
}

export function registries(): { plain: RegistryEndpoint; auth: RegistryEndpoint & { username: string; password: string } } {
  const env = harnessEnv();
  return { plain: env.registry, auth: env.registryAuth };
}

export function uniqueRepo(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** A small Timoni-style module with a timoni.ignore. */
export const FIXTURE_MODULE = join(__dirname, 'module');
