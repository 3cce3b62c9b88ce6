// Round trips through the harness registry: push → resolve → pull reproduces the directory.
import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FIXTURE_MODULE, registries, snapshotTree, tempDir, uniqueRepo } from '../testdata/helpers';
import { pullArtifact, pullModule } from './artifact-pull';
import { defaultPushModuleOptions, pushArtifact, pushModule } from './artifact-push';
import { BlobCache } from './blob-cache';
import { sha256Digest } from './digest';
import { ArtifactFormatError, DigestPinMismatchError } from './errors';
import { encodeManifest } from './manifest-json';
import { ANNOTATION, OCI_MANIFEST } from './media-types';
import { checkModulePin, listModuleVersions, planModulePull } from './module-reference';
import { parseReference } from './reference';
import { RegistryClient } from './registry-client';

/** The fixture as pulled: cue.mod and the module files, minus what timoni.ignore drops. */
async function expectedModuleTree(): Promise<Record<string, string>> {
  const copy = join(await tempDir(), 'm');
  await cp(FIXTURE_MODULE, copy, { recursive: true });
  await rm(join(copy, 'README.md'));
  await rm(join(copy, 'debug_values.cue'));
  await rm(join(copy, 'ignore'), { recursive: true });
  return snapshotTree(copy);
}

describe('module artifacts through the registry', () => {
  const { plain, auth } = registries();
  const client = new RegistryClient();

  it('pushes, resolves and pulls a module that reproduces the directory', async () => {
    const url = `oci://${plain.host}/${uniqueRepo('modules/fixture')}`;
    const pushed = await pushModule(client, url, FIXTURE_MODULE, defaultPushModuleOptions('0.1.0'));
    expect(pushed.tags).toEqual(['0.1.0', 'latest']);
    const ref = parseReference(`${url}:0.1.0`);
    const resolved = await client.resolve(ref);
    expect(resolved.digest).toBe(pushed.digest);
    expect((await client.resolve(parseReference(`${url}:latest`))).digest).toBe(pushed.digest);

    const cache = new BlobCache({ dir: await tempDir(), maxBytes: 1 << 20 });
    const dest = join(await tempDir(), 'module');
    const pulled = await pullModule(client, { ...ref, tag: undefined, digest: resolved.digest }, dest, { cache, extract: { maxBytes: 1 << 20, maxFiles: 100 } });
    expect(pulled).toMatchObject({ repository: url, digest: pushed.digest, version: '0.1.0' });
    expect(pulled.annotations[ANNOTATION.version]).toBe('0.1.0');
    expect(pulled.layers.map((l) => l.annotations?.['sh.timoni.content.type'])).toEqual(['module/vendor', 'module']);
    expect(await snapshotTree(dest)).toEqual(await expectedModuleTree());

    // A second pull is served from the cache.
    await pullModule(client, ref, join(await tempDir(), 'again'), { cache, extract: { maxBytes: 1 << 20, maxFiles: 100 } });
    expect(cache.stats()).toMatchObject({ misses: 2, hits: 2 });
  });

  it('pushes the same digest again for the same directory', async () => {
    const url = `oci://${plain.host}/${uniqueRepo('modules/determinism')}`;
    const a = await pushModule(client, url, FIXTURE_MODULE, defaultPushModuleOptions('1.0.0'));
    const b = await pushModule(client, url, FIXTURE_MODULE, { ...defaultPushModuleOptions('1.0.1'), version: '1.0.0', latest: false });
    expect(b.digest).toBe(a.digest);
  });

  it('applies the bundle pinning rules against real pulls and lists versions', async () => {
    const url = `oci://${plain.host}/${uniqueRepo('modules/pinned')}`;
    const v1 = await pushModule(client, url, FIXTURE_MODULE, defaultPushModuleOptions('1.0.0'));
    const v2 = await pushModule(client, url, FIXTURE_MODULE, { ...defaultPushModuleOptions('2.0.0-rc.1'), annotations: { note: 'second' } });
    expect(v2.digest).not.toBe(v1.digest);

    const byDigest = planModulePull({ url, version: 'latest', digest: v1.digest });
    const pulled = await pullModule(client, byDigest.reference, join(await tempDir(), 'm'));
    checkModulePin(byDigest, pulled.digest);
    expect(pulled.version).toBe('1.0.0');

    const pinnedWrong = planModulePull({ url, version: '2.0.0-rc.1', digest: v1.digest });
    const wrong = await pullModule(client, pinnedWrong.reference, join(await tempDir(), 'm'));
    expect(() => checkModulePin(pinnedWrong, wrong.digest)).toThrow(DigestPinMismatchError);

    const repo = parseReference(url);
    expect(await listModuleVersions(client, repo)).toEqual({ versions: ['2.0.0-rc.1', '1.0.0'], latest: true });
  });

  it('pulls from the basic-auth registry', async () => {
    const authed = new RegistryClient({ credentials: { kind: 'basic', username: auth.username, password: auth.password } });
    const url = `oci://${auth.host}/${uniqueRepo('modules/private')}`;
    const pushed = await pushModule(authed, url, FIXTURE_MODULE, defaultPushModuleOptions('0.0.1'));
    const dest = join(await tempDir(), 'module');
    expect((await pullModule(authed, parseReference(`${url}:0.0.1`), dest)).digest).toBe(pushed.digest);
    expect(await snapshotTree(dest)).toEqual(await expectedModuleTree());
  });

  it('refuses artifacts whose config media type is not Timoni', async () => {
    const repo = { registry: plain.host, repository: uniqueRepo('modules/foreign') };
    const config = Buffer.from('{}');
    await client.pushBlob(repo, config);
    const manifest = encodeManifest({ schemaVersion: 2, mediaType: OCI_MANIFEST, config: { mediaType: 'application/vnd.oci.image.config.v1+json', size: 2, digest: sha256Digest(config) }, layers: [] });
    await client.putManifest({ ...repo, tag: '1.0.0' }, manifest, OCI_MANIFEST);
    const dest = join(await tempDir(), 'never');
    await expect(pullModule(client, { ...repo, tag: '1.0.0' }, dest)).rejects.toThrow(/unsupported artifact type 'application\/vnd.oci.image.config.v1\+json'/);
  });
});

describe('generic artifacts through the registry', () => {
  const { plain } = registries();
  const client = new RegistryClient();

  it('pushes under several tags and pulls by content type', async () => {
    const url = `oci://${plain.host}/${uniqueRepo('projects/demo')}`;
    const pushed = await pushArtifact(client, url, FIXTURE_MODULE, { tags: ['v1', 'stable'], contentType: 'timoni.sh/bundles', annotations: { team: 'fleet' } });
    expect((await client.resolve(parseReference(`${url}:stable`))).digest).toBe(pushed.digest);

    const dest = join(await tempDir(), 'project');
    const pulled = await pullArtifact(client, parseReference(`${url}:v1`), dest, 'timoni.sh/bundles');
    expect(pulled.annotations).toEqual({ team: 'fleet' });
    const tree = await snapshotTree(dest);
    expect(tree['templates/config.cue']).toContain('#Config');
    expect(tree['ignore/secret.cue']).toBeUndefined();

    await expect(pullArtifact(client, parseReference(`${url}:v1`), join(await tempDir(), 'x'), 'generic')).rejects.toThrow(ArtifactFormatError);
    // The empty content type takes every Timoni layer.
    expect((await pullArtifact(client, parseReference(`${url}:v1`), join(await tempDir(), 'y'))).layers).toHaveLength(1);
  });
});
