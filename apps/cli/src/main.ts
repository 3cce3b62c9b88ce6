// The CLI's entry: bundled into dist/cli/cli.js, which the `flotilla` bin
// (launcher.ts) loads.
import { processIo } from './io';
import { run } from './run';

// What `ps` shows: never the arguments, which may hold a token.
process.title = 'flotilla';

void run(process.argv.slice(2), processIo()).then((code) => {
  // Exit once output is flushed; pools (CUE workers, sockets) must not keep the process alive.
  process.stdout.write('', () => process.exit(code));
});
