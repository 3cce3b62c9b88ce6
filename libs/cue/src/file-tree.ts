import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileTree } from './types';

/** Reads every regular file under `root` into a FileTree (paths relative, slash-separated). */
export function readFileTree(root: string): FileTree {
  const tree: FileTree = {};
  // The tree path is built along the walk: path.relative per file was a third of a CLI build's read.
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full, `${prefix}${entry.name}/`);
      else if (entry.isFile()) tree[`${prefix}${entry.name}`] = readFileSync(full);
    }
  };
  walk(root, '');
  return tree;
}
