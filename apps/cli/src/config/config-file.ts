// Contexts in $XDG_CONFIG_HOME/flotilla/config.yaml (else ~/.config/…). The
// file holds tokens, so it is written 0600 in a 0700 directory, and re-chmodded
// on every write in case it was created by hand.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse, stringify } from 'yaml';
import { CliError, messageOf } from '../errors';

export interface HubContext {
  name: string;
  server: string;
  /** a static API token, or the access token of a single sign-on */
  token: string;
  /** set when `token` came from the hub's OpenID provider (`flotilla login --oidc`): how to renew it */
  oidc?: OidcSession;
}

export interface OidcSession {
  issuer: string;
  clientId: string;
  refreshToken?: string;
  /** epoch seconds the access token expires */
  expiresAt: number;
}

export interface CliConfig {
  currentContext?: string;
  contexts: HubContext[];
}

export function configPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'flotilla', 'config.yaml');
}

export function readConfig(path: string): CliConfig {
  if (!existsSync(path)) return { contexts: [] };
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${messageOf(err)}`, 'fix the file or remove it and run `flotilla login` again');
  }
  const raw = (doc ?? {}) as { 'current-context'?: unknown; contexts?: unknown };
  const contexts = Array.isArray(raw.contexts) ? raw.contexts : [];
  const valid = contexts.filter((c): c is HubContext => typeof c?.name === 'string' && typeof c?.server === 'string' && typeof c?.token === 'string');
  if (valid.length !== contexts.length) throw new CliError(`${path}: every context needs a name, server and token`, 'fix the file or run `flotilla login` again');
  return {
    currentContext: typeof raw['current-context'] === 'string' ? raw['current-context'] : undefined,
    contexts: valid.map((c) => {
      const oidc = oidcOf((c as { oidc?: unknown }).oidc);
      return { name: c.name, server: c.server, token: c.token, ...(oidc ? { oidc } : {}) };
    }),
  };
}

/** The single sign-on part of a context as written by writeConfig; anything else is dropped (the token then simply is not renewed). */
function oidcOf(raw: unknown): OidcSession | undefined {
  const o = raw as { issuer?: unknown; 'client-id'?: unknown; 'refresh-token'?: unknown; 'expires-at'?: unknown } | undefined;
  if (typeof o?.issuer !== 'string' || typeof o['client-id'] !== 'string' || typeof o['expires-at'] !== 'number') return undefined;
  return { issuer: o.issuer, clientId: o['client-id'], expiresAt: o['expires-at'], ...(typeof o['refresh-token'] === 'string' ? { refreshToken: o['refresh-token'] } : {}) };
}

export function writeConfig(path: string, config: CliConfig): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const text = stringify({ 'current-context': config.currentContext ?? null, contexts: config.contexts.map((c) => ({
      name: c.name,
      server: c.server,
      token: c.token,
      ...(c.oidc ? { oidc: { issuer: c.oidc.issuer, 'client-id': c.oidc.clientId, 'expires-at': c.oidc.expiresAt, ...(c.oidc.refreshToken ? { 'refresh-token': c.oidc.refreshToken } : {}) } } : {}),
    })),
  });
  // Write beside it and rename, so a crash never leaves half a file of tokens.
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}
