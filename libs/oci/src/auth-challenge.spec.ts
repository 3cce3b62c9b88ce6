import { parseChallenge, repositoryScope } from './auth-challenge';

describe('parseChallenge', () => {
  it('parses bearer challenges with quoted, comma-holding values', () => {
    expect(parseChallenge('Bearer realm="https://auth.io/token",service="registry.io",scope="repository:a/b:pull,push"')).toEqual({
      scheme: 'bearer',
      params: { realm: 'https://auth.io/token', service: 'registry.io', scope: 'repository:a/b:pull,push' },
    });
  });
  it('parses basic challenges and lowercases the scheme', () => {
    expect(parseChallenge('Basic realm="flotilla"')).toEqual({ scheme: 'basic', params: { realm: 'flotilla' } });
  });
  it('returns undefined for an empty header', () => {
    expect(parseChallenge('')).toBeUndefined();
  });
  it('formats repository scopes', () => {
    expect(repositoryScope('a/b', ['pull', 'push'])).toBe('repository:a/b:pull,push');
  });
});
