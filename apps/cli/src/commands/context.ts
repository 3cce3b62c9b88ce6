// `flotilla context use|list|current|delete`: the saved hubs. Tokens are never shown.
import type { Command } from 'commander';
import { examples, group, withOutput, type Cli } from '../cli';
import { configPath, readConfig, writeConfig } from '../config/config-file';
import { resolveContext } from '../config/context';
import { CliError } from '../errors';
import { printData, printTable } from '../output/format';


export function registerContext(program: Command, cli: Cli): void {
  const ctx = group(program, 'context', 'list and switch the saved hub contexts');
  examples(ctx.command('use <name>').description('make a context the current one'), ['flotilla context use prod']).action((name: string) => {
    const path = configPath(cli.io.env);
    const config = readConfig(path);
    if (!config.contexts.some((c) => c.name === name)) throw new CliError(`context "${name}" not found in ${path}`, 'run `flotilla context list` to see the contexts, or `flotilla login` to add one');
    config.currentContext = name;
    writeConfig(path, config);
    cli.io.out.write(`switched to context "${name}"\n`);
  });
  examples(withOutput(ctx.command('list').description('list the saved contexts (the current one marked *)')), ['flotilla context list', 'flotilla context list -o json']).action((opts: { output?: string }) => {
    const config = readConfig(configPath(cli.io.env));
    const rows = config.contexts.map((c) => ({ name: c.name, server: c.server, current: c.name === config.currentContext }));
    if (printData(cli.io, cli.format(opts), rows)) return;
    printTable(cli.io, ['CURRENT', 'NAME', 'SERVER'], rows.map((r) => [r.current ? '*' : '', r.name, r.server]), 'no contexts: run `flotilla login` to add one');
  });
  examples(ctx.command('current').description('print the context in use (after FLOTILLA_SERVER/FLOTILLA_TOKEN)'), ['flotilla context current']).action(() => {
    const c = resolveContext(cli.io.env, cli.globals.context);
    cli.io.out.write(`${c.name}\t${c.server}\n`);
  });
  examples(ctx.command('delete <name>').description('forget a saved context and its token'), ['flotilla context delete old-hub']).action((name: string) => {
    const path = configPath(cli.io.env);
    const config = readConfig(path);
    if (!config.contexts.some((c) => c.name === name)) throw new CliError(`context "${name}" not found in ${path}`, 'run `flotilla context list` to see the contexts');
    config.contexts = config.contexts.filter((c) => c.name !== name);
    if (config.currentContext === name) config.currentContext = undefined;
    writeConfig(path, config);
    cli.io.out.write(`deleted context "${name}"\n`);
  });
}
