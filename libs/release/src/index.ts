// Flotilla's release, read from its package.json at run time: hub, agent and CLI
// all ship it beside dist/, so the version each reports (and the skew policy
// compares) has one source.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The nearest package.json above this file that is Flotilla's: the sources under Jest, dist/libs/… in an image, or the dist/cli bundle. */
function readRelease(): string {
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

export const FLOTILLA_RELEASE = readRelease();
