import { ArtifactFormatError, DigestMismatchError, OciError, RegistryError, UnsafeArchiveError } from './errors';

describe('errors', () => {
  it('are OciError subclasses named after their class, keeping the cause', () => {
    const cause = new Error('socket hang up');
    const err = new RegistryError('GET', 'http://r/v2/a/manifests/1', 0, undefined, 'request failed', { cause });
    expect(err).toBeInstanceOf(OciError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('RegistryError');
    expect(err.cause).toBe(cause);
  });

  it('name the object involved', () => {
    expect(new DigestMismatchError('sha256:a', 'sha256:b', 'blob r/a@sha256:a').message).toBe('blob r/a@sha256:a: digest mismatch, expected sha256:a but content hashes to sha256:b');
    expect(new UnsafeArchiveError('../x', 'path-escape', "'..' is not allowed").message).toBe("archive entry '../x' refused (path-escape): '..' is not allowed");
    expect(new ArtifactFormatError('r/a:1', 'no layer').message).toBe("artifact 'r/a:1': no layer");
    expect(new RegistryError('GET', 'http://r/x', 404, 'MANIFEST_UNKNOWN', 'manifest unknown').message).toBe('GET http://r/x: 404 MANIFEST_UNKNOWN: manifest unknown');
  });
});
