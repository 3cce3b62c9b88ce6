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
  it('reads escapes, unquoted values, spaces around "=" and stops at what is not a parameter', () => {
    expect(parseChallenge('Bearer realm = "a\\"b" , service=reg.io,scope=x y=z')).toEqual({ scheme: 'bearer', params: { realm: 'a"b', service: 'reg.io', scope: 'x', y: 'z' } });
    expect(parseChallenge('Bearer realm="unterminated')).toEqual({ scheme: 'bearer', params: {} });
    expect(parseChallenge('Bearer =x,realm=y')).toEqual({ scheme: 'bearer', params: {} });
  });
  it('reads the header that made the old expression backtrack in one pass', () => {
    // a registry's answer is untrusted input: this shape cost cubic time before
    const header = `Bearer +=${'\t'.repeat(100_000)}${'\n'.repeat(100_000)}\n=\t"`;
    expect(parseChallenge(header)).toEqual({ scheme: 'bearer', params: { '+': '=' } });
  });
  it('returns undefined for an empty header', () => {
    expect(parseChallenge('')).toBeUndefined();
  });
  it('formats repository scopes', () => {
    expect(repositoryScope('a/b', ['pull', 'push'])).toBe('repository:a/b:pull,push');
  });
});
