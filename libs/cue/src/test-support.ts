// Helpers shared by this library's specs (not exported from index.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFileTree } from './file-tree';
import type { FileTree } from './types';

export const TESTDATA = join(__dirname, '..', 'testdata');

/** The webapp fixture module with Timoni's schema overlay added, as a build would see it. */
export function webappTree(): FileTree {
  const tree = readFileTree(join(TESTDATA, 'webapp'));
  tree['timoni.schema.cue'] = readFileSync(join(TESTDATA, 'overlays', 'timoni.schema.cue'));
  return tree;
}

export const INSTANCE_TAGS = { name: 'shop', namespace: 'apps' };
export const TAG_VARS = { moduleVersion: '1.0.0', kubeVersion: '1.31.0' };

/** Compares with a golden file; UPDATE_GOLDEN=1 rewrites it instead. */
export function golden(name: string, actual: string): string {
  const file = join(TESTDATA, 'golden', name);
  if (process.env.UPDATE_GOLDEN === '1') {
    writeFileSync(file, actual);
  }
  return readFileSync(file, 'utf8');
}
