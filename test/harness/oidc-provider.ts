// A real OpenID provider for tests: the certified `oidc-provider` package in
// its own process (oidc-provider-main.ts), served over TLS with a certificate
// from a throwaway CA, so clients trust it by CA file rather than by an
// "allow insecure http" switch. Users sign in through its login form; the
// helpers here fill that form with plain HTTP requests where no browser is
// needed (the device flow), the same requests a browser would send.
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { writeKubePki } from './kube-pki';
import { freePort } from './ports';
import { spawnLogged, stopProcess, waitUntil } from './process';

export interface OidcTestUser {
  username: string;
  password: string;
  email: string;
  groups: string[];
}

/** alice (team-a), bob (team-b), carol (platform-admins), dave (no groups at all). */
export const OIDC_TEST_USERS: Record<'alice' | 'bob' | 'carol' | 'dave', OidcTestUser> = {
  alice: { username: 'alice', password: 'alice-password', email: 'alice@example.test', groups: ['team-a'] },
  bob: { username: 'bob', password: 'bob-password', email: 'bob@example.test', groups: ['team-b'] },
  carol: { username: 'carol', password: 'carol-password', email: 'carol@example.test', groups: ['platform-admins'] },
  dave: { username: 'dave', password: 'dave-password', email: 'dave@example.test', groups: [] },
};

/** A protected resource the provider issues JWT access tokens for (RFC 8707 resource indicators). */
export interface OidcTestResource {
  indicator: string;
  audience: string;
  accessTokenTtlSeconds: number;
}

/** What the provider process is started with. */
export interface OidcProviderSettings {
  issuer: string;
  port: number;
  certFile: string;
  keyFile: string;
  clientId: string;
  redirectUris: string[];
  users: OidcTestUser[];
  /** the first is the default when a client names none */
  resources: OidcTestResource[];
}

export interface OidcProviderOptions {
  clientId?: string;
  /** the hub's audience; default: the client id */
  audience?: string;
  accessTokenTtlSeconds?: number;
}

export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  expires_in?: number;
}

export interface TestOidcProvider {
  /** https://127.0.0.1:port */
  issuer: string;
  /** PEM file of the CA that signed its serving certificate */
  caFile: string;
  clientId: string;
  /** the audience of the hub resource's access tokens */
  audience: string;
  /** resource indicators: the hub (default), another API (audience `other-api`), and the hub with 2 s tokens */
  resources: { hub: string; other: string; shortLived: string };
  logFile: string;
  /** fetch that trusts the provider's CA */
  fetch: typeof undiciFetch;
  /** Signs `user` in through the device flow and the login form; returns the provider's tokens. */
  tokensFor(user: OidcTestUser, options?: { resource?: string }): Promise<TokenSet>;
  /** Completes a device authorization someone else started: enters the user code and signs in through the form. */
  approveDevice(userCode: string, user: OidcTestUser): Promise<void>;
  stop(): Promise<void>;
}

const DEFAULT_CLIENT_ID = 'flotilla';
const REQUEST_DEADLINE_MS = 10_000;
const START_DEADLINE_MS = 30_000;
const START_ATTEMPTS = 2;
const MAIN = join(__dirname, __filename.endsWith('.ts') ? 'oidc-provider-main.ts' : 'oidc-provider-main.js');
const RUN_TS = join(__dirname, '..', '..', 'scripts', 'run-ts.mjs');

/** Starts a provider in `workDir/name`; `stop()` ends it (its issuer then refuses connections). */
export async function startOidcProvider(workDir: string, name = 'oidc', options: OidcProviderOptions = {}): Promise<TestOidcProvider> {
  const dir = join(workDir, name);
  mkdirSync(dir, { recursive: true });
  const pki = await writeKubePki(dir);
  const clientId = options.clientId ?? DEFAULT_CLIENT_ID;
  const audience = options.audience ?? clientId;
  const ttl = options.accessTokenTtlSeconds ?? 300;
  const resources = { hub: 'urn:flotilla:hub', other: 'urn:example:other-api', shortLived: 'urn:flotilla:hub-short' };
  const logFile = join(workDir, `${name}.log`);
  const args = __filename.endsWith('.ts') ? [RUN_TS, MAIN] : [MAIN];
  const dispatcher = new Agent({ connect: { ca: pki.caData }, headersTimeout: REQUEST_DEADLINE_MS, bodyTimeout: REQUEST_DEADLINE_MS });
  const trusted = ((input: Parameters<typeof undiciFetch>[0], init: Parameters<typeof undiciFetch>[1] = {}) =>
    undiciFetch(input, { dispatcher, signal: AbortSignal.timeout(REQUEST_DEADLINE_MS), ...init })) as typeof undiciFetch;
  // Once in a full CI run a provider never listened within a minute (its log ended after the
  // package's import); a second start, on another port, keeps that from failing the suite.
  let issuer = '';
  let child: ChildProcess | undefined;
  for (let attempt = 1; !child; attempt++) {
    const port = await freePort();
    issuer = `https://127.0.0.1:${port}`;
    const settings: OidcProviderSettings = {
      issuer,
      port,
      certFile: pki.servingCert,
      keyFile: pki.servingKey,
      clientId,
      redirectUris: ['http://127.0.0.1/auth/oidc/callback'],
      users: Object.values(OIDC_TEST_USERS),
      resources: [
        { indicator: resources.hub, audience, accessTokenTtlSeconds: ttl },
        { indicator: resources.other, audience: 'other-api', accessTokenTtlSeconds: ttl },
        { indicator: resources.shortLived, audience, accessTokenTtlSeconds: 2 },
      ],
    };
    const started = spawnLogged(process.execPath, args, logFile, { env: { ...process.env, NODE_OPTIONS: '', FLOTILLA_OIDC_PROVIDER_SETTINGS: JSON.stringify(settings) } });
    try {
      await waitUntil(name, started, logFile, async () => (await trusted(`${issuer}/.well-known/openid-configuration`)).ok, START_DEADLINE_MS);
      child = started;
    } catch (err) {
      await stopProcess(started);
      if (attempt === START_ATTEMPTS) throw err;
      appendFileSync(logFile, `harness: start ${attempt} failed (${err instanceof Error ? err.message : String(err)}); starting again on another port\n`);
      // in the suite's output too: a CI log should show how often this happens
      process.stderr.write(`harness: the OpenID provider ${name} did not serve within ${START_DEADLINE_MS / 1000} s; starting it again (log: ${logFile})\n`);
    }
  }

  const discovery = (await (await trusted(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>;
  const approveDevice = async (userCode: string, user: OidcTestUser) => {
    const page = await submitForms(trusted, discovery.device_authorization_endpoint.replace('/device/auth', '/device'), {
      user_code: userCode,
      username: user.username,
      password: user.password,
    });
    if (!page.includes('Sign-in Success')) throw new Error(`device sign-in of ${user.username} did not succeed; last page:\n${page.slice(0, 2000)}`);
  };
  return {
    issuer,
    caFile: pki.caCert,
    clientId,
    audience,
    resources,
    logFile,
    fetch: trusted,
    approveDevice,
    async tokensFor(user, opts = {}) {
      const start = await trusted(discovery.device_authorization_endpoint, {
        method: 'POST',
        body: new URLSearchParams({ client_id: clientId, scope: 'openid email profile groups offline_access', resource: opts.resource ?? resources.hub }),
      });
      const device = (await start.json()) as { device_code: string; user_code: string; error?: string };
      if (!start.ok) throw new Error(`device authorization failed: ${JSON.stringify(device)}`);
      await approveDevice(device.user_code, user);
      const res = await trusted(discovery.token_endpoint, {
        method: 'POST',
        body: new URLSearchParams({ client_id: clientId, grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.device_code }),
      });
      const tokens = (await res.json()) as TokenSet;
      if (!res.ok) throw new Error(`token request failed: ${JSON.stringify(tokens)}`);
      return tokens;
    },
    async stop() {
      await stopProcess(child);
      await dispatcher.close();
    },
  };
}

/**
 * Walks the provider's pages as a browser would: follows redirects with its
 * cookies and submits each form it meets, filling the fields named in `fill`
 * (and pressing "confirm"), until a page has no form left. Returns that page.
 */
async function submitForms(fetchFn: typeof undiciFetch, startUrl: string, fill: Record<string, string>): Promise<string> {
  const cookies = new Map<string, string>();
  let url = startUrl;
  let method = 'GET';
  let body: URLSearchParams | undefined;
  for (let step = 0; step < 20; step++) {
    const res = await fetchFn(url, {
      method,
      body,
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0];
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      url = new URL(location, url).toString();
      method = 'GET';
      body = undefined;
      await res.arrayBuffer();
      continue;
    }
    const html = await res.text();
    const form = parseForm(html);
    if (!form) return html;
    if (res.status === 401) throw new Error(`the provider refused the sign-in: ${html.slice(0, 500)}`);
    const fields = new URLSearchParams();
    for (const [name, value] of form.inputs) fields.set(name, fill[name] ?? value);
    if (html.includes('name="confirm"')) fields.set('confirm', 'yes');
    url = new URL(form.action || url, url).toString();
    method = 'POST';
    body = fields;
  }
  throw new Error(`sign-in at ${startUrl} took more than 20 pages`);
}

/** The first form of a page: its action and its inputs' names and values (plain string scanning, no HTML parser needed for these pages). */
function parseForm(html: string): { action: string; inputs: Array<[string, string]> } | undefined {
  const start = html.indexOf('<form');
  if (start < 0) return undefined;
  const end = html.indexOf('</form>', start);
  const form = html.slice(start, end < 0 ? html.length : end);
  const tagEnd = form.indexOf('>');
  const action = attribute(form.slice(0, tagEnd), 'action') ?? '';
  const inputs: Array<[string, string]> = [];
  for (let i = form.indexOf('<input'); i >= 0; i = form.indexOf('<input', i + 1)) {
    const tag = form.slice(i, form.indexOf('>', i));
    const name = attribute(tag, 'name');
    if (name) inputs.push([name, attribute(tag, 'value') ?? '']);
  }
  return { action: action.replaceAll('&amp;', '&'), inputs };
}

function attribute(tag: string, name: string): string | undefined {
  const key = ` ${name}="`;
  const at = tag.indexOf(key);
  if (at < 0) return undefined;
  const from = at + key.length;
  return tag.slice(from, tag.indexOf('"', from));
}
