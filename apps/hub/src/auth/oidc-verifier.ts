// Verifies bearer tokens the OpenID provider issued: its discovery document
// (openid-client) names the JWKS, jose checks signature, issuer, audience and
// expiry. Nothing here is reached by a static token, so a slow or absent
// provider only ever delays the requests that carry one of its tokens, and
// those by at most the fetch deadline.
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { createRemoteJWKSet, customFetch as joseFetch, decodeJwt, errors as joseErrors, type JWTPayload, jwtVerify } from 'jose';
import { readBoundedBody } from '@flotilla/egress';
import * as oidc from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import type { OidcConfig } from '../config/oidc-config';

/** Each call to the provider (discovery, keys) ends within this. */
export const PROVIDER_DEADLINE_MS = 5000;
/** No answer of the provider (discovery, keys, token) is read past this: they are a few KiB. */
export const PROVIDER_MAX_BYTES = 512 * 1024;
/** After a failed discovery, requests fail fast for this long instead of each trying again. */
const DISCOVERY_RETRY_MS = 5000;
/** Keys are fetched again at most this often when a token names an unknown key id. */
const JWKS_COOLDOWN_MS = 30_000;
/** Keys are kept this long before they are fetched again. */
const JWKS_MAX_AGE_MS = 10 * 60_000;
/** Only signatures made with a private key: the provider publishes public keys, never a shared secret. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** The token is not one this hub accepts (HTTP 401). */
export class OidcTokenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OidcTokenError';
  }
}

/** The provider could not be asked (HTTP 503): the token may well be good. */
export class OidcProviderUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OidcProviderUnavailableError';
  }
}

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

export class OidcTokenVerifier {
  private readonly fetch: Fetch;
  private discovered: Promise<oidc.Configuration> | undefined;
  private keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  private failedUntil = 0;
  private lastFailure: unknown;

  constructor(
    readonly config: OidcConfig,
    private readonly now: () => Date,
  ) {
    this.fetch = providerFetch(config);
  }

  /**
   * Whether the bearer is a JWT naming this provider as its issuer: only those
   * are checked here. Anything else (a static token, another issuer's JWT) is
   * left to the token table, which does not know it.
   */
  issued(token: string): boolean {
    if (token.split('.').length !== 3) return false;
    try {
      return decodeJwt(token).iss === this.config.issuer;
    } catch {
      return false;
    }
  }

  /** The verified claims; OidcTokenError when the token is not good, OidcProviderUnavailableError when the provider cannot be reached. */
  async verify(token: string): Promise<JWTPayload> {
    const keys = await this.keySet();
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: ALGORITHMS,
        currentDate: this.now(),
        requiredClaims: ['sub', 'exp'],
      });
      return payload;
    } catch (err) {
      throw translate(err, this.config);
    }
  }

  /**
   * The provider's metadata, read once through discovery (openid-client)
   * and kept; a failed discovery is tried again after a pause, requests
   * meanwhile fail fast. Its later calls (token endpoint) go through the
   * same fetch: the extra CA and the deadline.
   */
  provider(): Promise<oidc.Configuration> {
    if (this.discovered) return this.discovered;
    if (this.now().getTime() < this.failedUntil) {
      return Promise.reject(new OidcProviderUnavailableError(`the identity provider ${this.config.issuer} is not reachable: ${messageOf(this.lastFailure)}`, { cause: this.lastFailure }));
    }
    const discovered = oidc
      .discovery(new URL(this.config.issuer), this.config.clientId, undefined, oidc.None(), { [oidc.customFetch]: this.fetch, timeout: PROVIDER_DEADLINE_MS / 1000 })
      .then(
        (found) => {
          found[oidc.customFetch] = this.fetch;
          return found;
        },
        (err: unknown) => {
          throw new OidcProviderUnavailableError(`the identity provider ${this.config.issuer} is not reachable: ${messageOf(err)}`, { cause: err });
        },
      );
    this.discovered = discovered;
    discovered.catch((err: unknown) => {
      this.discovered = undefined;
      this.lastFailure = err instanceof Error && err.cause !== undefined ? err.cause : err;
      this.failedUntil = this.now().getTime() + DISCOVERY_RETRY_MS;
    });
    return discovered;
  }

  /** The provider's keys, at the jwks_uri its discovery names; jose caches them and fetches again for an unknown key id. */
  private async keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (this.keys) return this.keys;
    const jwksUri = (await this.provider()).serverMetadata().jwks_uri;
    if (!jwksUri) throw new OidcProviderUnavailableError(`the identity provider ${this.config.issuer} publishes no jwks_uri`);
    this.keys ??= createRemoteJWKSet(new URL(jwksUri), {
      timeoutDuration: PROVIDER_DEADLINE_MS,
      cooldownDuration: JWKS_COOLDOWN_MS,
      cacheMaxAge: JWKS_MAX_AGE_MS,
      [joseFetch]: this.fetch,
    });
    return this.keys;
  }
}

/**
 * fetch for the provider: trusts the system's CAs plus FLOTILLA_OIDC_CA_FILE,
 * gives every call a total deadline and reads no answer past PROVIDER_MAX_BYTES.
 */
function providerFetch(config: OidcConfig): Fetch {
  let dispatcher: Agent | undefined;
  if (config.caFile) {
    let extra: string;
    try {
      extra = readFileSync(config.caFile, 'utf8');
    } catch (err) {
      throw new Error(`FLOTILLA_OIDC_CA_FILE=${config.caFile}: cannot read it: ${messageOf(err)}`, { cause: err });
    }
    if (!extra.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`FLOTILLA_OIDC_CA_FILE=${config.caFile}: expected PEM certificates`);
    dispatcher = new Agent({ connect: { ca: [...rootCertificates, extra] } });
  }
  return async (url, init) => {
    const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(PROVIDER_DEADLINE_MS)]) : AbortSignal.timeout(PROVIDER_DEADLINE_MS);
    // redirects are not followed: the provider's endpoints are the ones it names
    const res = (await undiciFetch(url, { ...(init as object), signal, redirect: 'manual', ...(dispatcher ? { dispatcher } : {}) })) as unknown as Response;
    const body = await readBoundedBody(res, PROVIDER_MAX_BYTES, (received, announced) => new Error(`its answer from ${new URL(url).pathname} is larger than ${PROVIDER_MAX_BYTES} bytes (${announced ?? `over ${received}`} bytes)`));
    // statuses that may carry no body take none
    const bodyless = [101, 204, 205, 304].includes(res.status);
    return new Response(bodyless ? null : body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

function translate(err: unknown, config: OidcConfig): Error {
  if (err instanceof joseErrors.JWTExpired) return new OidcTokenError('token expired: sign in again', { cause: err });
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return new OidcTokenError(`token is not for this hub: its audience is not "${config.audience}"`, { cause: err });
    return new OidcTokenError(`token claim "${err.claim}" is not acceptable: ${err.reason}`, { cause: err });
  }
  if (err instanceof joseErrors.JWKSTimeout) return new OidcProviderUnavailableError(`the identity provider's keys did not arrive within ${PROVIDER_DEADLINE_MS} ms`, { cause: err });
  if (err instanceof joseErrors.JOSEError) return new OidcTokenError(`token rejected: ${err.message}`, { cause: err });
  // the keys could not be fetched (network, TLS, HTTP status)
  return new OidcProviderUnavailableError(`the identity provider's keys could not be fetched: ${messageOf(err)}`, { cause: err });
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.cause instanceof Error ? `${err.message} (${err.cause.message})` : err.message;
  return String(err);
}
