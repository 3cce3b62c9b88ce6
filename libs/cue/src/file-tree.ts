import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { FileTree } from './types';

/** Reads every regular file under `root` into a FileTree (paths relative, slash-separated). */
export function readFileTree(root: string): FileTree {
  const tree: FileTree = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) tree[relative(root, full).split(sep).join('/')] = readFileSync(full);
    }
  };
  walk(root);
  return tree;
}
