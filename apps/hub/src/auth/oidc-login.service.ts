// The status page's sign-in: the authorization code flow with PKCE, run by
// the hub with openid-client. Nothing is kept in memory between the two legs
// (any replica may take the callback): the PKCE verifier and state travel in
// a cookie sealed with the hub's encryption key, and the access token reaches
// the page through a second sealed, one-minute cookie that the page trades
// for the token once with a same-origin POST. Neither ever appears in a URL
// or a log line.
import { Inject, Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import { Clock } from '../common/clock';
import { InvalidInputError, NotFoundError, UnauthorizedError, UnavailableError } from '../common/errors';
import { CryptoRepository, DecryptionError } from '../crypto/crypto.repository';
import { OidcAuthenticator } from './oidc-authenticator';
import { OidcProviderUnavailableError } from './oidc-verifier';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';

export const FLOW_COOKIE = 'flotilla_oidc_flow';
export const HANDOFF_COOKIE = 'flotilla_oidc_handoff';
/** The sign-in at the provider must finish within this. */
export const FLOW_TTL_MS = 10 * 60_000;
/** The page must collect its token within this after the callback. */
export const HANDOFF_TTL_MS = 60_000;
const FLOW_AAD = 'flotilla/oidc-flow';
const HANDOFF_AAD = 'flotilla/oidc-handoff';
const SCOPE = 'openid email profile groups';

interface Flow {
  state: string;
  verifier: string;
  redirectUri: string;
  /** epoch ms */
  until: number;
}

/** A cookie to set: its name, value and lifetime; attributes are the controller's. */
export interface CookieSet {
  name: string;
  value: string;
  maxAgeSeconds: number;
}

@Injectable()
export class OidcLoginService {
  constructor(
    private readonly authenticator: OidcAuthenticator,
    private readonly crypto: CryptoRepository,
    private readonly clock: Clock,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
  ) {}

  /** Where to send the browser to sign in, and the sealed flow cookie to set. `host` is the request's Host header, used when no redirect URL is configured. */
  async start(host: string | undefined): Promise<{ location: string; cookie: CookieSet }> {
    const provider = await this.provider();
    const redirectUri = this.redirectUri(host);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const location = oidc.buildAuthorizationUrl(provider, {
      redirect_uri: redirectUri,
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const flow: Flow = { state, verifier, redirectUri, until: this.clock.now().getTime() + FLOW_TTL_MS };
    return { location: location.href, cookie: { name: FLOW_COOKIE, value: this.seal(flow, FLOW_AAD), maxAgeSeconds: FLOW_TTL_MS / 1000 } };
  }

  /** Exchanges the code (PKCE and state checked by openid-client); returns the handoff cookie that carries the access token to the page. */
  async finish(query: string, flowCookie: string | undefined): Promise<CookieSet> {
    const flow = this.unseal<Flow>(flowCookie, FLOW_AAD);
    if (!flow) throw new UnauthorizedError('no sign-in is under way in this browser, or it took longer than 10 minutes; start again');
    const provider = await this.provider();
    const params = new URLSearchParams(query);
    if (params.has('error')) throw new UnauthorizedError(`the identity provider refused the sign-in: ${(params.get('error') ?? '').slice(0, 100)}`);
    let accessToken: string;
    try {
      const tokens = await oidc.authorizationCodeGrant(provider, new URL(`${flow.redirectUri}?${query}`), { pkceCodeVerifier: flow.verifier, expectedState: flow.state });
      accessToken = tokens.access_token;
    } catch (err) {
      if (err instanceof oidc.ResponseBodyError || err instanceof oidc.AuthorizationResponseError) throw new UnauthorizedError(`the identity provider refused the sign-in: ${err.error}`);
      if (err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('OAUTH_')) throw new InvalidInputError([`callback: ${err.message}`]);
      throw new UnavailableError(`the identity provider could not complete the sign-in: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    return { name: HANDOFF_COOKIE, value: this.seal({ accessToken, until: this.clock.now().getTime() + HANDOFF_TTL_MS }, HANDOFF_AAD), maxAgeSeconds: HANDOFF_TTL_MS / 1000 };
  }

  /** The access token the callback left for the page; the controller clears the cookie in the same answer. */
  collect(handoffCookie: string | undefined): string {
    const handoff = this.unseal<{ accessToken: string; until: number }>(handoffCookie, HANDOFF_AAD);
    if (!handoff) throw new UnauthorizedError('no single sign-on is waiting to be collected; sign in again');
    return handoff.accessToken;
  }

  private async provider(): Promise<oidc.Configuration> {
    const found = this.authenticator.provider();
    if (!found) throw new NotFoundError('single sign-on setting', 'oidc');
    try {
      return await found;
    } catch (err) {
      if (err instanceof OidcProviderUnavailableError) throw new UnavailableError(err.message, { cause: err });
      throw err;
    }
  }

  private redirectUri(host: string | undefined): string {
    if (this.config.oidc?.redirectUrl) return this.config.oidc.redirectUrl;
    // the Host header only chooses among redirect URIs the provider has registered for this client
    if (!host || host.length > 255 || !/^[A-Za-z0-9.:[\]-]+$/.test(host)) throw new InvalidInputError(['Host: expected a host[:port] header (or set FLOTILLA_OIDC_REDIRECT_URL)']);
    return `http://${host}/auth/oidc/callback`;
  }

  private seal(value: object, aad: string): string {
    const sealed = this.crypto.seal(JSON.stringify(value), aad);
    return `${sealed.keyId}.${sealed.envelope.replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '')}`;
  }

  /** The sealed value, or undefined when absent, tampered with, sealed for another use, or past its time. */
  private unseal<T extends { until: number }>(cookie: string | undefined, aad: string): T | undefined {
    if (!cookie || cookie.length > 4096) return undefined;
    const dot = cookie.lastIndexOf('.');
    if (dot <= 0) return undefined;
    try {
      const envelope = Buffer.from(cookie.slice(dot + 1), 'base64url').toString('base64');
      const value = JSON.parse(this.crypto.open({ keyId: cookie.slice(0, dot), envelope }, aad)) as T;
      return typeof value.until === 'number' && value.until > this.clock.now().getTime() ? value : undefined;
    } catch (err) {
      if (err instanceof DecryptionError || err instanceof SyntaxError) return undefined;
      throw err;
    }
  }
}
