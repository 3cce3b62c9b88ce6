// The tests' identity provider as its own process: the certified
// `oidc-provider` package over TLS on 127.0.0.1, with test users, a login
// form that checks passwords, the device flow, and JWT access tokens for
// resource indicators. test/harness/oidc-provider.ts starts it; its
// settings arrive as JSON in FLOTILLA_OIDC_PROVIDER_SETTINGS.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { IncomingMessage } from 'node:http';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { OidcProviderSettings, OidcTestUser } from './oidc-provider';

const settings = JSON.parse(process.env.FLOTILLA_OIDC_PROVIDER_SETTINGS ?? '{}') as OidcProviderSettings;
const users = new Map<string, OidcTestUser>(settings.users.map((u) => [u.username, u]));
const resources = new Map(settings.resources.map((r) => [r.indicator, r]));
const scopes = 'openid email profile groups offline_access';

const signing = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...signing.privateKey.export({ format: 'jwk' }), kid: randomBytes(6).toString('hex'), use: 'sig', alg: 'RS256' };
// steps in the log, so a start that stalls shows where
process.stdout.write('oidc-provider: signing key generated\n');

function claimsOf(user: OidcTestUser): Record<string, unknown> {
  return { sub: user.username, email: user.email, email_verified: true, preferred_username: user.username, groups: user.groups };
}

const configuration: Configuration = {
  clients: [
    {
      client_id: settings.clientId,
      token_endpoint_auth_method: 'none',
      // native: a loopback redirect URI matches whatever port the hub listens on (RFC 8252)
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types: ['code'],
      redirect_uris: settings.redirectUris,
    },
  ],
  jwks: { keys: [jwk as never] },
  cookies: { keys: [randomBytes(32).toString('hex')] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username'], groups: ['groups'] },
  scopes: scopes.split(' '),
  findAccount: (_ctx, id) => {
    const user = users.get(id);
    return user ? { accountId: id, claims: () => claimsOf(user) } : undefined;
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  features: {
    devInteractions: { enabled: false },
    deviceFlow: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: (): string => settings.resources[0].indicator,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx: KoaContextWithOIDC, indicator: string) => {
        const resource = resources.get(indicator);
        if (!resource) throw new Provider.errors.InvalidTarget(`unknown resource ${indicator}`);
        return { scope: scopes, audience: resource.audience, accessTokenFormat: 'jwt', accessTokenTTL: resource.accessTokenTtlSeconds, jwt: { sign: { alg: 'RS256' } } };
      },
    },
  },
  // the groups and email ride in the JWT access token, as providers' "groups claim" options put them
  extraTokenClaims: (_ctx, token) => {
    const user = 'accountId' in token && typeof token.accountId === 'string' ? users.get(token.accountId) : undefined;
    return user ? { groups: user.groups, email: user.email, preferred_username: user.username } : undefined;
  },
  // an access token lives as long as its resource says (OidcProviderOptions.accessTokenTtlSeconds)
  ttl: { AccessToken: (_ctx: KoaContextWithOIDC, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? 300, IdToken: 300, RefreshToken: 3600, DeviceCode: 300, Interaction: 600, Session: 3600, Grant: 3600 },
  issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
};

const provider = new Provider(settings.issuer, configuration);
provider.proxy = false;

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > 16_384) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

function loginPage(uid: string, message: string): string {
  const escaped = message.replaceAll('&', '&amp;').replaceAll('<', '&lt;');
  return `<!doctype html><html><head><title>Test identity provider</title></head><body>
<h1>Sign in to the test identity provider</h1>${escaped ? `<p class="error">${escaped}</p>` : ''}
<form method="post" action="/interaction/${uid}/login">
<label>Username <input name="username" autocomplete="username" autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button>
</form></body></html>`;
}

// The login form (checks the password) and consent given on the user's behalf (a test provider asks nothing).
provider.use(async (ctx: KoaContextWithOIDC, next) => {
  const parts = ctx.path.split('/');
  if (parts[1] !== 'interaction' || !parts[2]) return next();
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  if (ctx.method === 'GET' && details.prompt.name === 'login') {
    ctx.type = 'html';
    ctx.body = loginPage(details.uid, '');
    return;
  }
  if (ctx.method === 'POST' && parts[3] === 'login') {
    const form = await readForm(ctx.req);
    const user = users.get(form.get('username') ?? '');
    if (!user || user.password !== form.get('password')) {
      ctx.status = 401;
      ctx.type = 'html';
      ctx.body = loginPage(details.uid, 'wrong username or password');
      return;
    }
    ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, { login: { accountId: user.username } }, { mergeWithLastSubmission: false }));
    return;
  }
  if (details.prompt.name === 'consent') {
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (missing.missingOIDCScope) grant!.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant!.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, s] of Object.entries(missing.missingResourceScopes ?? {})) grant!.addResourceScope(indicator, s.join(' '));
    const grantId = await grant!.save();
    ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, { consent: { grantId } }, { mergeWithLastSubmission: true }));
    return;
  }
  ctx.status = 400;
  ctx.body = `unexpected interaction ${details.prompt.name}`;
});

const server = createServer({ cert: readFileSync(settings.certFile), key: readFileSync(settings.keyFile) }, provider.callback());
server.on('error', (err) => {
  process.stderr.write(`oidc-provider cannot serve at ${settings.issuer}: ${err.message}\n`);
  process.exit(1);
});
server.listen(settings.port, '127.0.0.1', () => process.stdout.write(`oidc-provider listening at ${settings.issuer}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
