// Shared by the specs: fixture paths, local module loading and goldens.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readFileTree, type CueEngine } from '@flotilla/cue';
import { hashTree, DEVEL_VERSION } from './module-build';
import { moduleName } from './module-fetch';
import type { LoadedModule } from './types';

export const TESTDATA = join(__dirname, '..', 'testdata');

export async function localModule(cue: CueEngine, name: string, version = DEVEL_VERSION): Promise<LoadedModule> {
  const tree = readFileTree(join(TESTDATA, 'modules', name));
  return { tree, treeHash: hashTree(tree), ref: { name: await moduleName(cue, tree, name), repository: `file://${name}`, version, digest: 'unknown' } };
}

/** Compares with testdata/golden/<name>; UPDATE_GOLDEN=1 rewrites it. */
export function golden(name: string, actual: string): string {
  const path = join(TESTDATA, 'golden', name);
  if (!existsSync(path) && process.env.UPDATE_GOLDEN !== '1') throw new Error(`golden ${path} missing: run with UPDATE_GOLDEN=1 and review it`);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
  }
  return readFileSync(path, 'utf8');
}
