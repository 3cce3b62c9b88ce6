import { sha256Digest } from './digest';
import { encodeManifest } from './manifest-json';
import { OCI_MANIFEST, TIMONI_CONFIG, TIMONI_CONFIG_JSON, TIMONI_CONTENT } from './media-types';

// Written by go-containerregistry v0.21.9 for Timoni's composition (empty image,
// OCI media type, Timoni config type, annotations, two appended layers).
const GCR_MANIFEST =
  '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.timoni.config.v1+json","size":115,"digest":"sha256:5b943e2b943f6c81dbbd4e2eca5121f4fcc39139e3d1219d6d89bd925b77d9fe"},"layers":[{"mediaType":"application/vnd.timoni.content.v1.tar+gzip","size":25,"digest":"sha256:f901eda57fd86d4239806fd4b76f64036c1c20711267a7bc776ab2aa45069b2a","annotations":{"sh.timoni.content.type":"module"}},{"mediaType":"application/vnd.timoni.content.v1.tar+gzip","size":25,"digest":"sha256:59690cf12c90d58051236c08143720b71516d7cb49025b35b18f88bcd463b3f8","annotations":{"sh.timoni.content.type":"module"}}],"annotations":{"a":"b","org.opencontainers.image.version":"1.0.0"}}';

describe('encodeManifest', () => {
  it("writes go-containerregistry's bytes exactly", () => {
    const layer = (digest: string) => ({ mediaType: TIMONI_CONTENT, size: 25, digest, annotations: { 'sh.timoni.content.type': 'module' } });
    const bytes = encodeManifest({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: { mediaType: TIMONI_CONFIG, size: 115, digest: sha256Digest(TIMONI_CONFIG_JSON) },
      layers: [
        layer('sha256:f901eda57fd86d4239806fd4b76f64036c1c20711267a7bc776ab2aa45069b2a'),
        layer('sha256:59690cf12c90d58051236c08143720b71516d7cb49025b35b18f88bcd463b3f8'),
      ],
      annotations: { 'org.opencontainers.image.version': '1.0.0', a: 'b' },
    });
    expect(bytes.toString()).toBe(GCR_MANIFEST);
  });

  it('has the config blob go-containerregistry writes', () => {
    expect(Buffer.byteLength(TIMONI_CONFIG_JSON)).toBe(115);
    expect(sha256Digest(TIMONI_CONFIG_JSON)).toBe('sha256:5b943e2b943f6c81dbbd4e2eca5121f4fcc39139e3d1219d6d89bd925b77d9fe');
  });

  it("escapes like Go's encoding/json and omits empty annotations", () => {
    const bytes = encodeManifest({
      schemaVersion: 2,
      config: { mediaType: 'c', size: 1, digest: 'd' },
      layers: [],
      annotations: { src: 'https://x/?a=1&b=<2>' },
    });
    expect(bytes.toString()).toBe('{"schemaVersion":2,"config":{"mediaType":"c","size":1,"digest":"d"},"layers":[],"annotations":{"src":"https://x/?a=1\\u0026b=\\u003c2\\u003e"}}');
    expect(encodeManifest({ schemaVersion: 2, config: { mediaType: 'c', size: 1, digest: 'd' }, layers: [], annotations: {} }).toString()).not.toContain('annotations');
  });
});
