// The hub's release, read from Flotilla's package.json at run time (the hub
// image ships it beside dist/): one source for the version.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The nearest package.json above this file that is Flotilla's: the sources under Jest, or dist/apps/hub/…. */
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

export const HUB_VERSION = readVersion();
