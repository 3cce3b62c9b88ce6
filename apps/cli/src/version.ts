// Read from package.json at run time: one source for the version.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function readVersion(): string {
  for (const up of ['../../..', '../../../..']) {
    try {
      return (JSON.parse(readFileSync(join(__dirname, up, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      // next candidate: src under ts (three levels) or dist (four)
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();
