// Which hub a command talks to: the selected context, with FLOTILLA_SERVER and
// FLOTILLA_TOKEN taking precedence (CI sets those and has no config file).
import { CliError } from '../errors';
import { configPath, readConfig, type HubContext } from './config-file';
import { trimTrailingSlashes } from '@flotilla/oci';

export interface Connection {
  name: string;
  server: string;
  token: string;
  /** a single sign-on context: when its token expires (epoch seconds), `renew` gets and saves a new one */
  oidc?: { expiresAt: number; renew: () => Promise<{ accessToken: string; expiresAt: number }> };
}

const RENEW_DEADLINE_MS = 30_000;

export function resolveContext(env: NodeJS.ProcessEnv, selected?: string): Connection {
  const path = configPath(env);
  const config = readConfig(path);
  const name = selected ?? config.currentContext;
  let ctx: HubContext | undefined;
  if (name) {
    ctx = config.contexts.find((c) => c.name === name);
    if (!ctx && selected) throw new CliError(`context "${selected}" not found in ${path}`, 'run `flotilla context list` to see the contexts');
  }
  const server = env.FLOTILLA_SERVER || ctx?.server;
  const token = env.FLOTILLA_TOKEN || ctx?.token;
  if (!server || !token) {
    throw new CliError('no hub context: nothing says which hub to talk to', 'run `flotilla login --server URL --token TOKEN`, or set FLOTILLA_SERVER and FLOTILLA_TOKEN');
  }
  const connection: Connection = { name: env.FLOTILLA_SERVER ? 'FLOTILLA_SERVER' : (ctx?.name ?? 'env'), server: trimTrailingSlashes(server), token };
  // FLOTILLA_TOKEN replaces the context's token, and with it anything that would renew it
  const session = !env.FLOTILLA_TOKEN && !env.FLOTILLA_SERVER ? ctx?.oidc : undefined;
  if (ctx && session) {
    const contextName = ctx.name;
    // loaded only when a token is due: openid-client stays out of every other command's start
    connection.oidc = { expiresAt: session.expiresAt, renew: async () => (await import('../oidc/oidc-session')).renew(contextName, session, env, RENEW_DEADLINE_MS) };
  }
  return connection;
}
