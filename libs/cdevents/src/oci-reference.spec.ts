import { CdeventsRequestError } from './errors';
import { normaliseRepository, ociReferenceOf, revisionPurl } from './oci-reference';

describe('OCI references', () => {
  it('normalises a Project repository for matching', () => {
    expect(normaliseRepository('oci://Registry.Example:5000/Acme/shop/')).toBe('registry.example:5000/acme/shop');
    expect(normaliseRepository('registry.example/acme/shop')).toBe('registry.example/acme/shop');
  });

  it('reads pkg:oci package URLs, with repository_url ending in the name or not', () => {
    expect(ociReferenceOf('pkg:oci/myapp@sha256%3A0b31?repository_url=mycr.io/myapp')).toEqual({ repository: 'mycr.io/myapp', digest: 'sha256:0b31' });
    expect(ociReferenceOf('pkg:oci/shop@sha256%3Aab?repository_url=https%3A%2F%2Fghcr.io%2Facme&tag=v2')).toEqual({ repository: 'ghcr.io/acme/shop', tag: 'v2', digest: 'sha256:ab' });
    expect(ociReferenceOf('pkg:oci/shop?repository_url=127.0.0.1%3A5000/acme/shop')).toEqual({ repository: '127.0.0.1:5000/acme/shop' });
  });

  it('reads oci:// URIs with a port, a tag and a digest', () => {
    expect(ociReferenceOf('oci://127.0.0.1:5000/acme/shop:v1@sha256:ab')).toEqual({ repository: '127.0.0.1:5000/acme/shop', tag: 'v1', digest: 'sha256:ab' });
    expect(ociReferenceOf('oci://127.0.0.1:5000/acme/shop')).toEqual({ repository: '127.0.0.1:5000/acme/shop' });
  });

  it('names no repository for other package types, and says what is missing from a pkg:oci without repository_url', () => {
    expect(ociReferenceOf('pkg:golang/mygit.com/myorg/myapp@234fd47e07d1004f0aed9c')).toBeNull();
    expect(ociReferenceOf('https://example.com/x')).toBeNull();
    const refused = (() => {
      try {
        ociReferenceOf('pkg:oci/myapp@sha256%3A0b31');
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toBeInstanceOf(CdeventsRequestError);
    expect(refused).toMatchObject({ status: 422, message: expect.stringContaining('has no repository_url qualifier: add it') });
    expect(() => ociReferenceOf('oci://registry-only')).toThrow(/names no repository/);
  });

  it('writes the package URL of a revision, which reads back to the same repository', () => {
    const purl = revisionPurl('oci://127.0.0.1:5000/acme/shop', 'latest@sha256:ab')!;
    expect(purl).toBe('pkg:oci/shop@sha256%3Aab?repository_url=127.0.0.1%3A5000%2Facme%2Fshop&tag=latest');
    expect(ociReferenceOf(purl)).toEqual({ repository: '127.0.0.1:5000/acme/shop', tag: 'latest', digest: 'sha256:ab' });
    expect(revisionPurl('oci://r/a', 'no-digest')).toBeUndefined();
  });
});
