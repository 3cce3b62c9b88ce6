// Read from package.json at run time: one source for the version.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The nearest package.json above this file that is Flotilla's: src under ts-jest, dist/apps/… or the dist/cli bundle. */
function readVersion(): string {
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'flotilla' && pkg.version) return pkg.version;
    } catch {
      // no package.json here: one level up
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();
