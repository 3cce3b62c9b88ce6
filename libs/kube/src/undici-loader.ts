// undici takes about 30 ms to load; a CLI command that never talks to a
// cluster (`project build`, `--help`) should not pay for it at start.
import type * as Undici from 'undici';

let loaded: typeof Undici | undefined;

export function undici(): typeof Undici {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require('undici') as typeof Undici);
}
