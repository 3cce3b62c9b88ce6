import { credentialsFor, credentialsFromFlag, dockerConfigCredentials, parseDockerConfig } from './docker-config';
import { AuthError } from './errors';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('docker config credentials', () => {
  const config = JSON.stringify({
    auths: {
      'https://index.docker.io/v1/': { auth: b64('hub:pw:with:colons') },
      'http://127.0.0.1:5000': { username: 'u', password: 'p' },
      'ghcr.io': { identitytoken: 'refresh-123', auth: b64('ignored:x') },
      'empty.io': {},
    },
  });
  const lookup = dockerConfigCredentials(config);

  it('decodes auth and splits at the first colon', () => {
    expect(lookup('index.docker.io')).toEqual({ kind: 'basic', username: 'hub', password: 'pw:with:colons' });
  });
  it('matches docker.io aliases and hosts written with a scheme', () => {
    expect(lookup('docker.io')).toMatchObject({ kind: 'basic', username: 'hub' });
    expect(lookup('registry-1.docker.io')).toMatchObject({ kind: 'basic' });
    expect(lookup('127.0.0.1:5000')).toEqual({ kind: 'basic', username: 'u', password: 'p' });
  });
  it('prefers identity tokens and falls back to anonymous', () => {
    expect(lookup('ghcr.io')).toEqual({ kind: 'identityToken', token: 'refresh-123', username: 'ignored' });
    expect(lookup('empty.io')).toEqual({ kind: 'anonymous' });
    expect(lookup('quay.io')).toEqual({ kind: 'anonymous' });
  });
  it('reads the legacy .dockercfg shape (auths at top level)', () => {
    expect(credentialsFor(parseDockerConfig(JSON.stringify({ 'r.io': { auth: b64('a:b') } })), 'r.io')).toMatchObject({ username: 'a' });
  });
  it('refuses malformed content with a named error', () => {
    expect(() => parseDockerConfig('{nope')).toThrow(AuthError);
    expect(() => credentialsFor(parseDockerConfig(JSON.stringify({ auths: { 'r.io': { auth: b64('nocolon') } } })), 'r.io')).toThrow(/user:password/);
  });
  it("parses Timoni's --creds values", () => {
    expect(credentialsFromFlag('u:p:q')).toEqual({ kind: 'basic', username: 'u', password: 'p:q' });
    expect(credentialsFromFlag('tok')).toEqual({ kind: 'token', token: 'tok' });
  });
});
