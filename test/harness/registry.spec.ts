import { createHash } from 'node:crypto';
import { harnessEnv } from './env';
import type { RegistryEndpoint } from './types';

const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const TIMONI_CONFIG = 'application/vnd.timoni.config.v1+json';
const TIMONI_LAYER = 'application/vnd.timoni.content.v1.tar+gzip';

function digestOf(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

function basic(username: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
}

async function pushBlob(reg: RegistryEndpoint, repo: string, data: Buffer, headers: Record<string, string>) {
  const start = await fetch(`${reg.url}/v2/${repo}/blobs/uploads/`, { method: 'POST', headers });
  expect(start.status).toBe(202);
  const location = new URL(start.headers.get('location')!, reg.url);
  location.searchParams.set('digest', digestOf(data));
  const put = await fetch(location, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/octet-stream' },
    body: data,
  });
  expect(put.status).toBe(201);
  return digestOf(data);
}

async function roundTrip(reg: RegistryEndpoint, headers: Record<string, string>) {
  const repo = `harness/probe-${Date.now()}`;
  const config = Buffer.from('{}');
  const layer = Buffer.from('not really a tarball, the registry does not care');
  const configDigest = await pushBlob(reg, repo, config, headers);
  const layerDigest = await pushBlob(reg, repo, layer, headers);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: { mediaType: TIMONI_CONFIG, digest: configDigest, size: config.length },
      layers: [
        {
          mediaType: TIMONI_LAYER,
          digest: layerDigest,
          size: layer.length,
          annotations: { 'sh.timoni.content.type': 'module' },
        },
      ],
      annotations: { 'org.opencontainers.image.version': '1.0.0' },
    }),
  );
  const put = await fetch(`${reg.url}/v2/${repo}/manifests/1.0.0`, {
    method: 'PUT',
    headers: { ...headers, 'content-type': OCI_MANIFEST },
    body: manifest,
  });
  expect(put.status).toBe(201);
  expect(put.headers.get('docker-content-digest')).toBe(digestOf(manifest));

  const got = await fetch(`${reg.url}/v2/${repo}/manifests/1.0.0`, { headers: { ...headers, accept: OCI_MANIFEST } });
  expect(got.status).toBe(200);
  expect(Buffer.from(await got.arrayBuffer()).equals(manifest)).toBe(true);
  const blob = await fetch(`${reg.url}/v2/${repo}/blobs/${layerDigest}`, { headers });
  expect(Buffer.from(await blob.arrayBuffer()).equals(layer)).toBe(true);
  return repo;
}

describe('harness OCI registries', () => {
  const env = harnessEnv();

  it('pushes and pulls a Timoni-typed manifest and blob without credentials', async () => {
    await roundTrip(env.registry, {});
  });

  it('pushes and pulls with basic auth on the protected registry', async () => {
    const { registryAuth: reg } = env;
    await roundTrip(reg, basic(reg.username, reg.password));
  });

  it('rejects anonymous and wrong credentials with 401 and a Basic challenge', async () => {
    const { registryAuth: reg } = env;
    const anonymous = await fetch(`${reg.url}/v2/`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    const wrong = await fetch(`${reg.url}/v2/`, { headers: basic(reg.username, 'wrong-password') });
    expect(wrong.status).toBe(401);
  });
});
