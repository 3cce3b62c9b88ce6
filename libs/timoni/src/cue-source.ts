// Small helpers over CUE sources and ordered JSON shared by the loaders.
import { posix } from 'node:path';
import type { FileTree, OrderedValue } from '@flotilla/cue';

/** The package name a CUE source declares, or undefined for none. */
export function packageOf(src: string): string | undefined {
  for (const raw of src.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('//') || line.startsWith('@')) continue;
    const m = /^package\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(line);
    return m ? m[1] : undefined;
  }
  return undefined;
}

/** A generated file's text with the package clause its companions use. */
export function withPackage(pkg: string | undefined, body: string): string {
  return pkg && pkg !== '_' ? `package ${pkg}\n\n${body}` : body;
}

export function textOf(tree: FileTree, path: string): string {
  const v = tree[path];
  return typeof v === 'string' ? v : Buffer.from(v).toString('utf8');
}

/** 1-based line of the first occurrence of `needle` in `src`, if any. */
export function lineOf(src: string, needle: string): number | undefined {
  const at = src.indexOf(needle);
  return at < 0 ? undefined : src.slice(0, at).split('\n').length;
}

/** JSON text of an ordered value, keeping key order. */
export function orderedToJson(v: OrderedValue): string {
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${JSON.stringify(k)}:${orderedToJson(x)}`).join(',')}}`;
  if (Array.isArray(v)) return `[${v.map(orderedToJson).join(',')}]`;
  return typeof v === 'bigint' ? v.toString() : JSON.stringify(v);
}

export function field(v: OrderedValue | undefined, key: string): OrderedValue | undefined {
  return v instanceof Map ? v.get(key) : undefined;
}

/**
 * Resolves `ref` against directory `dir` of the tree. Undefined when it
 * leaves the tree root (`..` past the root, absolute paths).
 */
export function resolveInTree(dir: string, ref: string): string | undefined {
  if (ref.startsWith('/') || ref.includes('\0')) return undefined;
  const joined = posix.normalize(posix.join(dir || '.', ref));
  if (joined === '..' || joined.startsWith('../') || joined.startsWith('/')) return undefined;
  return joined === '.' ? undefined : joined;
}
