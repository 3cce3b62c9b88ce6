// Single sign-on for the CLI with openid-client: the device authorization
// grant at login, the refresh token afterwards. The provider's TLS is
// checked against the system's CAs (add one with NODE_EXTRA_CA_CERTS).
import type { Configuration, DeviceAuthorizationResponse } from 'openid-client';
import { CliError, messageOf } from '../errors';
import { configPath, readConfig, writeConfig, type OidcSession } from '../config/config-file';

/** What the hub says about its provider (GET /api/v1/auth/oidc, public). */
export interface HubOidcSettings {
  issuer: string;
  clientId: string;
  audience: string;
}

export const LOGIN_SCOPE = 'openid email profile groups offline_access';

export interface TokenResult {
  accessToken: string;
  refreshToken?: string;
  /** epoch seconds */
  expiresAt: number;
}

/** openid-client is loaded only by the commands that sign in, so every other command starts as fast as before. */
async function discover(issuer: string, clientId: string, timeoutMs: number): Promise<{ client: typeof import('openid-client'); config: Configuration }> {
  const client = await import('openid-client');
  try {
    const config = await client.discovery(new URL(issuer), clientId, undefined, client.None(), { timeout: Math.ceil(timeoutMs / 1000) });
    return { client, config };
  } catch (err) {
    throw new CliError(`cannot read the identity provider ${issuer}: ${detail(err)}`, 'check that the provider is up; a private CA is trusted through NODE_EXTRA_CA_CERTS', undefined, { cause: err });
  }
}

/** The device authorization grant: `show` tells the user where to go and which code to enter; resolves once they have signed in. */
export async function deviceLogin(settings: HubOidcSettings, timeoutMs: number, show: (verificationUri: string, userCode: string, completeUri?: string) => void): Promise<TokenResult> {
  const { client, config } = await discover(settings.issuer, settings.clientId, timeoutMs);
  let started: DeviceAuthorizationResponse;
  try {
    started = await client.initiateDeviceAuthorization(config, { scope: LOGIN_SCOPE });
  } catch (err) {
    throw new CliError(`the identity provider refused to start a device sign-in: ${detail(err)}`, `the client "${settings.clientId}" must allow the device authorization grant`, undefined, { cause: err });
  }
  show(started.verification_uri, started.user_code, started.verification_uri_complete);
  try {
    const tokens = await client.pollDeviceAuthorizationGrant(config, started, undefined, { signal: AbortSignal.timeout(started.expires_in * 1000) });
    return resultOf(tokens);
  } catch (err) {
    throw new CliError(`sign-in did not complete: ${detail(err)}`, 'run `flotilla login --oidc` again and finish signing in before the code expires', undefined, { cause: err });
  }
}

/** A new access token for a context whose token expired; saved back into the context. */
export async function renew(contextName: string, session: OidcSession, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<TokenResult> {
  if (!session.refreshToken) throw new CliError(`the sign-in of context "${contextName}" expired`, 'run `flotilla login --oidc --hub URL` again');
  const { client, config } = await discover(session.issuer, session.clientId, timeoutMs);
  let result: TokenResult;
  try {
    result = resultOf(await client.refreshTokenGrant(config, session.refreshToken));
  } catch (err) {
    throw new CliError(`the sign-in of context "${contextName}" expired and could not be renewed: ${detail(err)}`, 'run `flotilla login --oidc --hub URL` again', undefined, { cause: err });
  }
  const path = configPath(env);
  const file = readConfig(path);
  file.contexts = file.contexts.map((c) =>
    c.name === contextName && c.oidc ? { ...c, token: result.accessToken, oidc: { ...c.oidc, expiresAt: result.expiresAt, refreshToken: result.refreshToken ?? c.oidc.refreshToken } } : c,
  );
  writeConfig(path, file);
  return result;
}

function resultOf(tokens: { access_token: string; refresh_token?: string; expiresIn(): number | undefined }): TokenResult {
  const seconds = tokens.expiresIn() ?? 300;
  return { accessToken: tokens.access_token, ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}), expiresAt: Math.floor(Date.now() / 1000) + seconds };
}

function detail(err: unknown): string {
  const e = err as { error?: unknown; error_description?: unknown; cause?: unknown };
  if (typeof e?.error === 'string') return typeof e.error_description === 'string' ? `${e.error}: ${e.error_description}` : e.error;
  return e?.cause instanceof Error ? `${messageOf(err)} (${e.cause.message})` : messageOf(err);
}
