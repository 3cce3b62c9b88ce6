// `flotilla login`: checks a token against the hub, then stores it as a context.
// With --oidc the token comes from the hub's OpenID provider instead, through
// the device authorization grant, and is renewed with its refresh token.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { examples, type Cli } from '../cli';
import { configPath, readConfig, writeConfig, type HubContext } from '../config/config-file';
import { CliError, messageOf, UsageError } from '../errors';
import { HubClient } from '../hub/hub-client';
import { deviceLogin, type HubOidcSettings } from '../oidc/oidc-session';
import { trimTrailingSlashes } from '@flotilla/oci';

interface LoginOptions {
  server?: string;
  hub?: string;
  token?: string;
  tokenStdin?: boolean;
  oidc?: boolean;
  name?: string;
}

export function registerLogin(program: Command, cli: Cli): void {
  const cmd = program
    .command('login')
    .description('check a token against a hub and save it as a context (and make it current); --oidc signs in through the hub\'s identity provider instead')
    .option('--server <url>', 'the hub URL, e.g. https://hub.example.com')
    .option('--hub <url>', 'the same as --server')
    .option('--token <token>', 'an API token (prefer --token-stdin or FLOTILLA_TOKEN: arguments are visible to other users)')
    .option('--token-stdin', 'read the token from standard input')
    .option('--oidc', 'sign in through the hub\'s OpenID provider (device code: open the printed URL, enter the code)')
    .option('--name <name>', 'context name (default: the server host)')
    .action((opts: LoginOptions) => login(cli, opts));
  examples(cmd, [
    'flotilla login --server https://hub.example.com --token-stdin < token.txt',
    'FLOTILLA_TOKEN=… flotilla login --server http://localhost:8080 --name dev',
    'flotilla login --oidc --hub https://hub.example.com',
  ]);
}

async function login(cli: Cli, opts: LoginOptions): Promise<void> {
  const given = opts.server ?? opts.hub;
  if (!given) throw new UsageError('no hub given', 'pass --server URL (or --hub URL)');
  if (opts.server && opts.hub && opts.server !== opts.hub) throw new UsageError('--server and --hub name different hubs', 'give one of them');
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`--server "${given}" is not a URL`, 'give it as http(s)://host[:port]');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--server "${given}" must be http:// or https://`);
  if (url.username || url.password) throw new UsageError('--server must not carry a user name or password', 'give the token with --token-stdin');
  const server = trimTrailingSlashes(url.toString());
  const name = opts.name ?? url.host;
  if (opts.oidc) {
    if (opts.token || opts.tokenStdin) throw new UsageError('--oidc gets its token from the identity provider', 'drop --token/--token-stdin, or drop --oidc');
    return loginOidc(cli, server, name);
  }
  const token = (opts.tokenStdin ? readFileSync(0, 'utf8') : (opts.token ?? cli.io.env.FLOTILLA_TOKEN ?? '')).trim();
  if (!token) throw new UsageError('no token given', 'pass --token-stdin (or --token, or set FLOTILLA_TOKEN), or sign in with --oidc');
  // any read proves the token: clusters need the lowest role (viewer)
  await check(cli, { name, server, token }, '/clusters');
  save(cli, { name, server, token });
  cli.io.out.write(`logged in to ${server}; context "${name}" is now current (saved in ${configPath(cli.io.env)})\n`);
}

async function loginOidc(cli: Cli, server: string, name: string): Promise<void> {
  const settings = await oidcSettings(server, cli.timeoutMs());
  const tokens = await deviceLogin(settings, cli.timeoutMs(), (uri, code, complete) => {
    cli.io.out.write(`To sign in, open ${complete ?? uri}\nand confirm the code: ${code}\n`);
  });
  const session = await check<{ name: string; role: string }>(cli, { name, server, token: tokens.accessToken }, '/session');
  save(cli, { name, server, token: tokens.accessToken, oidc: { issuer: settings.issuer, clientId: settings.clientId, expiresAt: tokens.expiresAt, ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}) } });
  cli.io.out.write(`logged in to ${server} as ${session.name} (role ${session.role}); context "${name}" is now current (saved in ${configPath(cli.io.env)})\n`);
}

/** The hub's provider, from its public route; no token is sent. */
async function oidcSettings(server: string, timeoutMs: number): Promise<HubOidcSettings> {
  let res: Response;
  let body: unknown;
  try {
    res = await fetch(`${server}/api/v1/auth/oidc`, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
    body = await res.json().catch(() => undefined);
  } catch (err) {
    throw new CliError(`cannot reach the hub at ${server}: ${messageOf((err as { cause?: unknown }).cause ?? err)}`, 'check the URL and that the hub is running');
  }
  if (res.status === 404) throw new CliError(`the hub at ${server} has no single sign-on`, 'its admin sets FLOTILLA_OIDC_ISSUER and FLOTILLA_OIDC_CLIENT_ID; until then use a token: flotilla login --server URL --token-stdin');
  const s = body as Partial<HubOidcSettings> | undefined;
  if (!res.ok || typeof s?.issuer !== 'string' || typeof s.clientId !== 'string' || typeof s.audience !== 'string') {
    throw new CliError(`the hub at ${server} answered HTTP ${res.status} to GET /api/v1/auth/oidc, not its sign-in settings`);
  }
  return { issuer: s.issuer, clientId: s.clientId, audience: s.audience };
}

/** A read with the token proves it; `/session` (viewer) also says who it is and with which role. */
async function check<T>(cli: Cli, context: Pick<HubContext, 'name' | 'server' | 'token'>, path: '/clusters' | '/session'): Promise<T> {
  const hub = new HubClient({ name: context.name, server: context.server, token: context.token }, cli.timeoutMs());
  return hub.get<T>(path, path === '/clusters' ? { query: { limit: 1 } } : {}).catch((err: unknown) => {
    if (err instanceof CliError) throw new CliError(`login to ${context.server} failed: ${err.message}`, err.hint);
    throw err;
  });
}

function save(cli: Cli, context: HubContext): void {
  const path = configPath(cli.io.env);
  const config = readConfig(path);
  config.contexts = [...config.contexts.filter((c) => c.name !== context.name), context];
  config.currentContext = context.name;
  writeConfig(path, config);
}
