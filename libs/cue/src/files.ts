import type { FileTree } from './types';

/**
 * A file as the Go side takes it: UTF-8 text, or base64 for other bytes.
 * `bytes` is the file as read, before either: the native helper's frame
 * carries it raw, and runtimes that speak JSON convert it (jsonFiles).
 */
export interface GoFile {
  path: string;
  text?: string;
  base64?: string;
  bytes?: Uint8Array;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function toGoFile(path: string, content: string | Uint8Array): GoFile {
  if (typeof content === 'string') return { path, text: content };
  try {
    return { path, text: utf8.decode(content) };
  } catch {
    return { path, base64: Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('base64') };
  }
}

export function toGoFiles(tree: FileTree): GoFile[] {
  return Object.entries(tree).map(([path, content]) => toGoFile(path, content));
}

/** A request's top-level files, bytes left as read: no UTF-8 decoding for a transport that does not need it. */
export function toRawGoFiles(tree: FileTree): GoFile[] {
  return Object.entries(tree).map(([path, content]) => (typeof content === 'string' ? { path, text: content } : { path, bytes: content }));
}

/** The payload with its top-level files as text or base64, for a JSON transport. */
export function jsonFiles(payload: unknown): unknown {
  const files = (payload as { files?: unknown } | null)?.files;
  if (!Array.isArray(files) || !files.some((f: GoFile) => f.bytes !== undefined)) return payload;
  return { ...(payload as object), files: (files as GoFile[]).map((f) => (f.bytes === undefined ? f : toGoFile(f.path, f.bytes))) };
}

/**
 * The part of the tree a load can read. Files named one by one in a tree
 * without `cue.mod/` can import only CUE's standard library and embed
 * nothing, so the rest of the tree (often a whole module with its
 * Kubernetes schemas, a megabyte) need not cross to the evaluator.
 */
export function reachableFiles(tree: FileTree, entries: readonly string[] | undefined): FileTree {
  if (!entries || entries.length === 0) return tree;
  if (Object.keys(tree).some((path) => path.startsWith('cue.mod/'))) return tree;
  if (!entries.every((path) => tree[path] !== undefined)) return tree;
  return Object.fromEntries(entries.map((path) => [path, tree[path]]));
}
