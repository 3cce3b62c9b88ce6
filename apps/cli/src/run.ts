// Runs one command line and turns every outcome into an exit code: 0 ok,
// 1 failure, 2 usage. Errors are printed as one message plus what to do;
// never a stack trace.
import { CommanderError } from 'commander';
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, ExitStatus, messageOf } from './errors';
import type { Io } from './io';
import { buildProgram } from './program';
import { painter } from './output/format';

export async function run(argv: string[], io: Io): Promise<number> {
  const { program } = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (err) {
    return report(err, io);
  }
}

function report(err: unknown, io: Io): number {
  if (err instanceof ExitStatus) return err.code;
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT_OK;
    // commander already printed its message (unknown option, missing argument…)
    if (err.code === 'flotilla.missingSubcommand') io.err.write(`error: ${err.message}\n`);
    return EXIT_USAGE;
  }
  const p = painter({ ...io, out: io.err as Io['out'] });
  if (err instanceof CliError) {
    io.err.write(`${p.red('error:')} ${err.message}\n`);
    if (err.hint) io.err.write(`${err.hint}\n`);
    return err.exitCode;
  }
  // A bug or an error from a library the CLI did not expect: still one line, no stack.
  io.err.write(`${p.red('error:')} ${messageOf(err)}\n`);
  return EXIT_FAILURE;
}
