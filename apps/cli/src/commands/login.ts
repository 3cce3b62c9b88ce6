// `flotilla login`: checks a token against the hub, then stores it as a context.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { examples, type Cli } from '../cli';
import { configPath, readConfig, writeConfig } from '../config/config-file';
import { CliError, UsageError } from '../errors';
import { HubClient } from '../hub/hub-client';
import { trimTrailingSlashes } from '@flotilla/oci';

interface LoginOptions {
  server: string;
  token?: string;
  tokenStdin?: boolean;
  name?: string;
}

export function registerLogin(program: Command, cli: Cli): void {
  const cmd = program
    .command('login')
    .description('check a token against a hub and save it as a context (and make it current)')
    .requiredOption('--server <url>', 'the hub URL, e.g. https://hub.example.com')
    .option('--token <token>', 'an API token (prefer --token-stdin or FLOTILLA_TOKEN: arguments are visible to other users)')
    .option('--token-stdin', 'read the token from standard input')
    .option('--name <name>', 'context name (default: the server host)')
    .action((opts: LoginOptions) => login(cli, opts));
  examples(cmd, [
    'flotilla login --server https://hub.example.com --token-stdin < token.txt',
    'FLOTILLA_TOKEN=… flotilla login --server http://localhost:8080 --name dev',
  ]);
}

async function login(cli: Cli, opts: LoginOptions): Promise<void> {
  const token = (opts.tokenStdin ? readFileSync(0, 'utf8') : (opts.token ?? cli.io.env.FLOTILLA_TOKEN ?? '')).trim();
  if (!token) throw new UsageError('no token given', 'pass --token-stdin (or --token, or set FLOTILLA_TOKEN)');
  let url: URL;
  try {
    url = new URL(opts.server);
  } catch {
    throw new UsageError(`--server "${opts.server}" is not a URL`, 'give it as http(s)://host[:port]');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--server "${opts.server}" must be http:// or https://`);
  if (url.username || url.password) throw new UsageError('--server must not carry a user name or password', 'give the token with --token-stdin');
  const server = trimTrailingSlashes(url.toString());
  const name = opts.name ?? url.host;
  const hub = new HubClient({ name, server, token }, cli.timeoutMs());
  // Any read proves the token: clusters need the lowest role (viewer).
  await hub.get('/clusters', { query: { limit: 1 } }).catch((err: unknown) => {
    if (err instanceof CliError) throw new CliError(`login to ${server} failed: ${err.message}`, err.hint);
    throw err;
  });
  const path = configPath(cli.io.env);
  const config = readConfig(path);
  config.contexts = [...config.contexts.filter((c) => c.name !== name), { name, server, token }];
  config.currentContext = name;
  writeConfig(path, config);
  cli.io.out.write(`logged in to ${server}; context "${name}" is now current (saved in ${path})\n`);
}
