import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testDir } from '../../../../test/harness/temp-dirs';
import { parseOidcConfig } from './oidc-config';

const dir = testDir('flotilla-oidc-config-');

function parse(env: Record<string, string>) {
  const problems: string[] = [];
  const config = parseOidcConfig((n) => env[n], problems, dir);
  return { config, problems };
}

describe('parseOidcConfig', () => {
  it('is off without an issuer and a client id', () => {
    expect(parse({})).toEqual({ config: undefined, problems: [] });
  });

  it('defaults the audience to the client id and groups to "groups"; resolves the CA file', () => {
    writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    writeFileSync(join(dir, 'not-ca.pem'), 'hello');
    expect(parse({ FLOTILLA_OIDC_ISSUER: 'https://idp.example.com/realms/x', FLOTILLA_OIDC_CLIENT_ID: 'flotilla', FLOTILLA_OIDC_CA_FILE: 'ca.pem' }).config).toEqual({
      issuer: 'https://idp.example.com/realms/x',
      clientId: 'flotilla',
      audience: 'flotilla',
      groupsClaim: 'groups',
      caFile: join(dir, 'ca.pem'),
    });
    expect(parse({ FLOTILLA_OIDC_ISSUER: 'https://i.example', FLOTILLA_OIDC_CLIENT_ID: 'f', FLOTILLA_OIDC_CA_FILE: 'not-ca.pem' }).problems).toEqual(['FLOTILLA_OIDC_CA_FILE="not-ca.pem": expected PEM certificates (-----BEGIN CERTIFICATE-----)']);
    expect(parse({ FLOTILLA_OIDC_ISSUER: 'https://i.example', FLOTILLA_OIDC_CLIENT_ID: 'f', FLOTILLA_OIDC_CA_FILE: 'missing.pem' }).problems).toEqual(['FLOTILLA_OIDC_CA_FILE="missing.pem": cannot read it (ENOENT)']);
  });

  it('names each bad variable', () => {
    expect(parse({ FLOTILLA_OIDC_ISSUER: 'http://idp.example.com', FLOTILLA_OIDC_CLIENT_ID: 'f' }).problems).toEqual([expect.stringMatching(/^FLOTILLA_OIDC_ISSUER="http:\/\/idp.example.com": expected an https URL/)]);
    expect(parse({ FLOTILLA_OIDC_ISSUER: 'https://idp.example.com' }).problems).toEqual(['FLOTILLA_OIDC_ISSUER and FLOTILLA_OIDC_CLIENT_ID: set both (single sign-on) or neither']);
    expect(parse({ FLOTILLA_OIDC_AUDIENCE: 'x' }).problems).toEqual([expect.stringMatching(/^FLOTILLA_OIDC_AUDIENCE: set FLOTILLA_OIDC_ISSUER/)]);
    expect(parse({ FLOTILLA_OIDC_ISSUER: 'https://i.example', FLOTILLA_OIDC_CLIENT_ID: 'f', FLOTILLA_OIDC_REDIRECT_URL: 'https://hub.example/elsewhere' }).problems).toEqual([
      expect.stringMatching(/^FLOTILLA_OIDC_REDIRECT_URL="https:\/\/hub.example\/elsewhere": expected the hub's own URL ending in \/auth\/oidc\/callback/),
    ]);
    expect(parse({ FLOTILLA_OIDC_ISSUER: 'https://i.example', FLOTILLA_OIDC_CLIENT_ID: 'f', FLOTILLA_OIDC_REDIRECT_URL: 'https://hub.example/auth/oidc/callback' }).config?.redirectUrl).toBe('https://hub.example/auth/oidc/callback');
    expect(parse({ FLOTILLA_OIDC_ISSUER: 'https://i.example', FLOTILLA_OIDC_CLIENT_ID: 'f', FLOTILLA_OIDC_GROUPS_CLAIM: 'sub' }).problems).toEqual([expect.stringMatching(/^FLOTILLA_OIDC_GROUPS_CLAIM="sub"/)]);
  });
});
