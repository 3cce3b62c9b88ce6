import type { FileTree } from './types';

/** A file as the Go side takes it: UTF-8 text, or base64 for other bytes. */
export interface GoFile {
  path: string;
  text?: string;
  base64?: string;
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
