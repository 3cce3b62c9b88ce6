import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { testDir } from '../../harness/temp-dirs';

/** Writes `files` (relative path → content) under a fresh temporary directory named after `prefix`; returns it. */
export function writeTree(files: Record<string, string>, prefix = 'flotilla-tree-'): string {
  const dir = testDir(prefix);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}
