import { realmMayReceiveCredentials } from './token-realm';

describe('realmMayReceiveCredentials', () => {
  it.each([
    ['ghcr.io', 'https://ghcr.io/token'],
    ['ghcr.io', 'https://GHCR.io:443/token'],
    ['127.0.0.1:5000', 'http://127.0.0.1:5000/token'],
    ['registry.gitlab.com', 'https://gitlab.com/jwt/auth'],
    ['index.docker.io', 'https://auth.docker.io/token'],
  ])('lets %s send its credentials to %s', (registry, realm) => {
    expect(realmMayReceiveCredentials(registry, new URL(realm))).toBe(true);
  });

  it.each([
    ['ghcr.io', 'https://attacker.example/token'],
    ['127.0.0.1:5000', 'http://127.0.0.1:5001/token'],
    ['127.0.0.1:5000', 'http://localhost:5000/token'],
    // a parent domain only over HTTPS on the default port, never a bare suffix or a sibling
    ['registry.gitlab.com', 'http://gitlab.com/jwt/auth'],
    ['registry.gitlab.com', 'https://gitlab.com:8443/jwt/auth'],
    ['registry.gitlab.com', 'https://com/jwt/auth'],
    ['registry.gitlab.com', 'https://other.gitlab.com/jwt/auth'],
    ['evilgitlab.com', 'https://gitlab.com/jwt/auth'],
    ['10.0.0.1', 'https://0.0.1/token'],
    ['ghcr.io', 'https://auth.docker.io/token'],
  ])('keeps the credentials of %s from %s', (registry, realm) => {
    expect(realmMayReceiveCredentials(registry, new URL(realm))).toBe(false);
  });
});
