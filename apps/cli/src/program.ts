// The command tree. Each command lives in its own file under commands/ and
// registers itself on its parent here.
import { Command } from 'commander';
import { Cli } from './cli';
import type { Io } from './io';
import { registerLogin } from './commands/login';
import { registerContext } from './commands/context';
import { registerCompletion } from './commands/completion';
import { registerCluster } from './commands/cluster';
import { registerProject } from './commands/project';
import { registerTenant } from './commands/tenant';
import { registerToken } from './commands/token';
import { registerArtifact } from './commands/artifact';
import { VERSION } from './version';

export function buildProgram(io: Io): { program: Command; cli: Cli } {
  const program = new Command('flotilla');
  const cli = new Cli(io, program);
  program
    .description('Flotilla: Timoni Projects across a fleet of Kubernetes clusters')
    .version(VERSION, '--version')
    .option('--context <name>', 'hub context to use (default: the current one)')
    .option('--request-timeout <duration>', 'total deadline of each call to the hub (default 30s)')
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s) })
    .exitOverride();
  registerLogin(program, cli);
  registerContext(program, cli);
  registerCluster(program, cli);
  registerProject(program, cli);
  registerTenant(program, cli);
  registerToken(program, cli);
  registerArtifact(program, cli);
  registerCompletion(program, cli);
  program.addHelpText('after', `\nStart with:\n  flotilla login --server https://hub.example.com --token-stdin < token.txt\n  flotilla cluster list\n  flotilla project status my-app\n`);
  return { program, cli };
}

