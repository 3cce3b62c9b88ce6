import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Single sign-on through an OpenID Connect provider (FLOTILLA_OIDC_*); absent: only static tokens. */
export interface OidcConfig {
  /** The provider's issuer, an https URL (FLOTILLA_OIDC_ISSUER); discovery is read from it. */
  issuer: string;
  /** The public client the status page and the CLI sign in as (FLOTILLA_OIDC_CLIENT_ID). */
  clientId: string;
  /** The `aud` a bearer token must carry (FLOTILLA_OIDC_AUDIENCE, default: the client id). */
  audience: string;
  /** PEM file of extra CAs to trust for the provider, beside the system's (FLOTILLA_OIDC_CA_FILE). */
  caFile?: string;
  /** The claim that lists the user's groups (FLOTILLA_OIDC_GROUPS_CLAIM, default `groups`). */
  groupsClaim: string;
  /**
   * Where the provider sends the page's sign-in back (FLOTILLA_OIDC_REDIRECT_URL, e.g.
   * https://hub.example.com/auth/oidc/callback); unset: http://<Host header>/auth/oidc/callback.
   */
  redirectUrl?: string;
}

/** Reads FLOTILLA_OIDC_*, adding every problem to `problems`; undefined when SSO is off. */
export function parseOidcConfig(value: (name: string) => string | undefined, problems: string[], cwd: string): OidcConfig | undefined {
  const issuer = value('FLOTILLA_OIDC_ISSUER');
  const clientId = value('FLOTILLA_OIDC_CLIENT_ID');
  const rest = ['FLOTILLA_OIDC_AUDIENCE', 'FLOTILLA_OIDC_CA_FILE', 'FLOTILLA_OIDC_GROUPS_CLAIM', 'FLOTILLA_OIDC_REDIRECT_URL'].filter((n) => value(n) !== undefined);
  if (issuer === undefined && clientId === undefined) {
    if (rest.length > 0) problems.push(`${rest.join(', ')}: set FLOTILLA_OIDC_ISSUER and FLOTILLA_OIDC_CLIENT_ID too, or unset ${rest.length > 1 ? 'them' : 'it'}`);
    return undefined;
  }
  if (issuer === undefined || clientId === undefined) {
    problems.push('FLOTILLA_OIDC_ISSUER and FLOTILLA_OIDC_CLIENT_ID: set both (single sign-on) or neither');
    return undefined;
  }
  let ok = true;
  let url: URL | undefined;
  try {
    url = new URL(issuer);
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    problems.push(`FLOTILLA_OIDC_ISSUER=${JSON.stringify(issuer.slice(0, 200))}: expected an https URL without query, fragment or credentials, exactly as the provider names itself (its "issuer")`);
    ok = false;
  }
  if (clientId.length > 255) {
    problems.push('FLOTILLA_OIDC_CLIENT_ID: at most 255 characters');
    ok = false;
  }
  const audience = value('FLOTILLA_OIDC_AUDIENCE') ?? clientId;
  if (audience.length > 255) {
    problems.push('FLOTILLA_OIDC_AUDIENCE: at most 255 characters');
    ok = false;
  }
  const groupsClaim = value('FLOTILLA_OIDC_GROUPS_CLAIM') ?? 'groups';
  if (groupsClaim.length > 100 || ['sub', 'iss', 'aud', 'exp'].includes(groupsClaim)) {
    problems.push(`FLOTILLA_OIDC_GROUPS_CLAIM=${JSON.stringify(groupsClaim.slice(0, 100))}: expected the name of the claim that lists groups (at most 100 characters, not a registered claim)`);
    ok = false;
  }
  const caFile = value('FLOTILLA_OIDC_CA_FILE');
  if (caFile !== undefined) {
    const problem = caFileProblem(resolve(cwd, caFile));
    if (problem) {
      problems.push(`FLOTILLA_OIDC_CA_FILE=${JSON.stringify(caFile.slice(0, 200))}: ${problem}`);
      ok = false;
    }
  }
  const redirectUrl = value('FLOTILLA_OIDC_REDIRECT_URL');
  if (redirectUrl !== undefined) {
    let r: URL | undefined;
    try {
      r = new URL(redirectUrl);
    } catch {
      r = undefined;
    }
    if (!r || (r.protocol !== 'https:' && r.protocol !== 'http:') || r.pathname !== '/auth/oidc/callback' || r.search !== '' || r.hash !== '') {
      problems.push(`FLOTILLA_OIDC_REDIRECT_URL=${JSON.stringify(redirectUrl.slice(0, 200))}: expected the hub's own URL ending in /auth/oidc/callback, e.g. https://hub.example.com/auth/oidc/callback`);
      ok = false;
    }
  }
  if (!ok) return undefined;
  return { issuer, clientId, audience, groupsClaim, ...(caFile !== undefined ? { caFile: resolve(cwd, caFile) } : {}), ...(redirectUrl !== undefined ? { redirectUrl } : {}) };
}

/** Why the file cannot serve as extra CAs, if it cannot: it is read once here, at start, like every setting. */
function caFileProblem(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return `cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  return text.includes('-----BEGIN CERTIFICATE-----') ? undefined : 'expected PEM certificates (-----BEGIN CERTIFICATE-----)';
}
