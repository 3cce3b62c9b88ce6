import { InvalidReferenceError } from './errors';
import { formatReference, isLoopbackRegistry, isValidTag, parseReference } from './reference';

const DIGEST = `sha256:${'a'.repeat(64)}`;

describe('parseReference', () => {
  it('parses host, port, nested repository, tag and digest with or without oci://', () => {
    expect(parseReference('oci://127.0.0.1:5000/team/app:1.2.3')).toEqual({ registry: '127.0.0.1:5000', repository: 'team/app', tag: '1.2.3', digest: undefined });
    expect(parseReference(`ghcr.io/stefanprodan/modules/podinfo@${DIGEST}`)).toMatchObject({ registry: 'ghcr.io', repository: 'stefanprodan/modules/podinfo', digest: DIGEST });
    expect(parseReference(`localhost/app:v1@${DIGEST}`)).toMatchObject({ registry: 'localhost', tag: 'v1', digest: DIGEST });
  });

  it('normalises Docker Hub names like go-containerregistry', () => {
    expect(parseReference('nginx')).toMatchObject({ registry: 'index.docker.io', repository: 'library/nginx' });
    expect(parseReference('docker.io/nginx:1')).toMatchObject({ registry: 'index.docker.io', repository: 'library/nginx', tag: '1' });
    expect(parseReference('registry-1.docker.io/org/app')).toMatchObject({ registry: 'index.docker.io', repository: 'org/app' });
  });

  it('refuses bad tags, digests and repositories', () => {
    expect(() => parseReference('oci://r.io/app:-bad')).toThrow(InvalidReferenceError);
    expect(() => parseReference(`oci://r.io/app:${'x'.repeat(129)}`)).toThrow(/tag/);
    expect(() => parseReference('oci://r.io/app@sha256:abc')).toThrow(/digest/);
    expect(() => parseReference('oci://r.io/App')).toThrow(/lowercase/);
    expect(() => parseReference('oci://')).toThrow(InvalidReferenceError);
  });

  it('round-trips through formatReference', () => {
    expect(formatReference(parseReference(`oci://r.io/a/b:t@${DIGEST}`))).toBe(`r.io/a/b:t@${DIGEST}`);
  });
});

describe('tags and hosts', () => {
  it('uses the Timoni tag grammar', () => {
    expect(isValidTag('1.0.0-rc.1')).toBe(true);
    expect(isValidTag('_x')).toBe(true);
    expect(isValidTag('1.0.0+build')).toBe(false);
    expect(isValidTag('.x')).toBe(false);
  });

  it('treats only loopback hosts as plain-HTTP safe', () => {
    expect(isLoopbackRegistry('127.0.0.1:5000')).toBe(true);
    expect(isLoopbackRegistry('localhost:5000')).toBe(true);
    expect(isLoopbackRegistry('[::1]:5000')).toBe(true);
    expect(isLoopbackRegistry('10.0.0.1:5000')).toBe(false);
    expect(isLoopbackRegistry('localhost.evil.com')).toBe(false);
  });
});
