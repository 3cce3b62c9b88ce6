// Authorization for one registry: basic, a fixed bearer token, or the token
// flow (challenge → token endpoint with scope), tokens cached per scope until
// expiry. Credentials go to a token realm only where token-realm.ts allows.
import { isLoopbackHost } from '@flotilla/egress';
import { type AuthChallenge } from './auth-challenge';
import { AuthError } from './errors';
import { RequestDeadline, untilAborted } from './request-deadline';
import { realmMayReceiveCredentials } from './token-realm';
import { readLimited } from './response-read';
import type { Credentials } from './types';

/** Seconds a token lives when the endpoint does not say (distribution token spec). */
const DEFAULT_TOKEN_SECONDS = 60;
/** Refresh this long before expiry so a token does not lapse in flight. */
const EXPIRY_MARGIN_MS = 5_000;

interface CachedToken {
  token: string;
  expiresAt: number;
}

export interface AuthenticatorOptions {
  registry: string;
  credentials: Credentials;
  userAgent: string;
  fetch: typeof fetch;
  /** Milliseconds a token request may take, headers and body. */
  timeoutMs?: number;
  /** Largest token response read (tokens are a few KiB). */
  maxBytes?: number;
  /** Plain-HTTP token realms off loopback are allowed (the registry's own `insecure`). */
  insecure?: boolean;
  now?: () => number;
}

export class Authenticator {
  private challenge: AuthChallenge | undefined;
  private readonly tokens = new Map<string, CachedToken>();
  private readonly inflight = new Map<string, Promise<string>>();
  private readonly now: () => number;
  /** Number of token endpoint round trips, for tests and metrics. */
  tokenRequests = 0;

  constructor(private readonly opts: AuthenticatorOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Remembers the registry's challenge; returns false when it cannot be answered. */
  learn(challenge: AuthChallenge | undefined): boolean {
    if (!challenge || (challenge.scheme !== 'basic' && challenge.scheme !== 'bearer')) return false;
    this.challenge = challenge;
    return true;
  }

  /** Drops a cached token that the registry refused. */
  forget(scopes: readonly string[]): void {
    this.tokens.delete(scopeKey(scopes));
  }

  /**
   * The Authorization header for a request needing `scopes`, or undefined
   * before any challenge. `signal` ends this caller's wait; a token request
   * shared with other callers runs on under its own deadline.
   */
  async header(scopes: readonly string[], signal?: AbortSignal): Promise<string | undefined> {
    const creds = this.opts.credentials;
    if (creds.kind === 'token') return `Bearer ${creds.token}`;
    const challenge = this.challenge;
    if (!challenge) return undefined;
    if (challenge.scheme === 'basic') {
      if (creds.kind !== 'basic') throw new AuthError(this.opts.registry, 'registry asks for basic auth and no username/password is configured');
      return `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
    }
    const key = scopeKey(scopes);
    const cached = this.tokens.get(key);
    if (cached && cached.expiresAt - EXPIRY_MARGIN_MS > this.now()) return `Bearer ${cached.token}`;
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.fetchToken(challenge, scopes).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return `Bearer ${await untilAborted(pending, signal)}`;
  }

  private async fetchToken(challenge: AuthChallenge, scopes: readonly string[]): Promise<string> {
    const { registry, credentials: creds } = this.opts;
    const realm = challenge.params.realm;
    if (!realm) throw new AuthError(registry, 'bearer challenge without realm');
    let url: URL;
    try {
      url = new URL(realm);
    } catch (cause) {
      throw new AuthError(registry, `bearer realm '${realm}' is not a URL`, { cause });
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AuthError(registry, `bearer realm '${realm}' must be an https:// URL`);
    // credentials go to the realm: never in clear across a network
    if (url.protocol === 'http:' && creds.kind !== 'anonymous' && !this.opts.insecure && !isLoopbackHost(url.hostname)) {
      throw new AuthError(registry, `bearer realm '${url.origin}' is plain http:// and not loopback; credentials are only sent to it over https://`);
    }
    if (creds.kind !== 'anonymous' && !realmMayReceiveCredentials(registry, url)) {
      throw new AuthError(
        registry,
        `bearer realm ${url.origin} is on another host: the credentials for ${registry} are not sent there (a token realm may be the registry's own host, a parent domain of it over HTTPS, or auth.docker.io for Docker Hub)`,
      );
    }
    const service = challenge.params.service;
    const headers: Record<string, string> = { 'user-agent': this.opts.userAgent };
    let init: RequestInit;
    if (creds.kind === 'identityToken') {
      // OAuth2 refresh-token grant, as docker login's identity tokens require.
      const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: creds.token, client_id: 'flotilla' });
      if (service) form.set('service', service);
      if (scopes.length) form.set('scope', scopes.join(' '));
      headers['content-type'] = 'application/x-www-form-urlencoded';
      init = { method: 'POST', headers, body: form.toString() };
    } else {
      if (service) url.searchParams.set('service', service);
      for (const scope of scopes) url.searchParams.append('scope', scope);
      if (creds.kind === 'basic') headers.authorization = `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
      init = { method: 'GET', headers };
    }
    this.tokenRequests++;
    const endpoint = `${url.origin}${url.pathname}`;
    const deadline = new RequestDeadline(init.method ?? 'GET', endpoint, this.opts.timeoutMs ?? 30_000);
    let res: Response;
    let text: string;
    try {
      res = await this.opts.fetch(url, { ...init, signal: deadline.signal });
      text = (await readLimited(res, this.opts.maxBytes ?? 64 * 1024, `token response from ${endpoint}`)).toString('utf8');
    } catch (cause) {
      throw new AuthError(registry, `token endpoint ${endpoint}: ${(deadline.wrap(cause) as Error).message}`, { cause: deadline.wrap(cause) });
    } finally {
      deadline.clear();
    }
    // the answer is not shown: the realm is named by the registry and may be any server
    if (!res.ok) throw new AuthError(registry, `token endpoint answered ${res.status}`);
    let body: { token?: string; access_token?: string; expires_in?: number; issued_at?: string };
    try {
      body = JSON.parse(text);
    } catch (cause) {
      throw new AuthError(registry, 'token endpoint answered with invalid JSON', { cause });
    }
    const token = body.token ?? body.access_token;
    if (!token) throw new AuthError(registry, 'token endpoint answered without a token');
    const issued = body.issued_at ? Date.parse(body.issued_at) : NaN;
    const start = Number.isFinite(issued) ? Math.min(issued, this.now()) : this.now();
    const seconds = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : DEFAULT_TOKEN_SECONDS;
    this.tokens.set(scopeKey(scopes), { token, expiresAt: start + seconds * 1000 });
    return token;
  }
}

function scopeKey(scopes: readonly string[]): string {
  return [...scopes].sort().join(' ');
}
