import { decodeJwt, decodeProtectedHeader } from 'jose';
import { OIDC_TEST_USERS, startOidcProvider, type TestOidcProvider } from './oidc-provider';
import { testDir } from './temp-dirs';

describe('the test identity provider', () => {
  let provider: TestOidcProvider;
  beforeAll(async () => {
    provider = await startOidcProvider(testDir('flotilla-oidc-'));
  }, 60_000);
  afterAll(() => provider?.stop());

  it('serves discovery over TLS from a CA clients trust by file', async () => {
    const res = await provider.fetch(`${provider.issuer}/.well-known/openid-configuration`);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta.issuer).toBe(provider.issuer);
    expect(meta.device_authorization_endpoint).toBe(`${provider.issuer}/device/auth`);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    // Node's own trust store does not know the test CA
    await expect(fetch(`${provider.issuer}/.well-known/openid-configuration`)).rejects.toThrow();
  });

  it('issues a JWT access token for the hub audience carrying the user groups', async () => {
    const tokens = await provider.tokensFor(OIDC_TEST_USERS.alice);
    expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt');
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ iss: provider.issuer, aud: provider.audience, sub: 'alice', groups: ['team-a'], email: 'alice@example.test' });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const other = decodeJwt((await provider.tokensFor(OIDC_TEST_USERS.bob, { resource: provider.resources.other })).access_token);
    expect(other).toMatchObject({ aud: 'other-api', sub: 'bob', groups: ['team-b'] });
  });

  it('refuses a wrong password at its login form', async () => {
    await expect(provider.tokensFor({ ...OIDC_TEST_USERS.carol, password: 'not-carols' })).rejects.toThrow(/refused the sign-in/);
  });
});
