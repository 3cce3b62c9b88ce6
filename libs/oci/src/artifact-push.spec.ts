import { FIXTURE_MODULE, registries, uniqueRepo } from '../testdata/helpers';
import { buildArtifactImage } from './artifact-build';
import { defaultPushModuleOptions, pushArtifact, pushImage, pushModule } from './artifact-push';
import { ArtifactFormatError } from './errors';
import { parseReference } from './reference';
import { RegistryClient } from './registry-client';

describe('pushing Timoni images', () => {
  const { plain } = registries();
  const client = new RegistryClient();

  it('requires at least one valid tag and pushes nothing otherwise', async () => {
    const url = `oci://${plain.host}/${uniqueRepo('projects/notag')}`;
    await expect(pushArtifact(client, url, FIXTURE_MODULE, { tags: [], contentType: 'generic', annotations: {} })).rejects.toThrow(/at least one tag/);
    await expect(pushArtifact(client, url, FIXTURE_MODULE, { tags: ['ok', 'bad+tag'], contentType: 'generic', annotations: {} })).rejects.toThrow(ArtifactFormatError);
    await expect(client.listTags(parseReference(url))).rejects.toMatchObject({ status: 404 });
  });

  it('uploads blobs once and points every tag at one digest', async () => {
    const repo = { registry: plain.host, repository: uniqueRepo('projects/tags') };
    const image = await buildArtifactImage(FIXTURE_MODULE, { contentType: 'generic', annotations: {} });
    const result = await pushImage(client, repo, image, ['a', 'b', 'c']);
    for (const tag of ['a', 'b', 'c']) expect((await client.resolve({ ...repo, tag })).digest).toBe(result.digest);
    for (const blob of [image.config, ...image.layers]) expect(await client.blobExists(repo, blob.descriptor.digest)).toBe(true);
  });

  it('tags modules with their version and, unless disabled, latest', async () => {
    const url = `oci://${plain.host}/${uniqueRepo('modules/nolatest')}`;
    await pushModule(client, url, FIXTURE_MODULE, { ...defaultPushModuleOptions('3.0.0'), latest: false });
    expect(await client.listTags(parseReference(url))).toEqual(['3.0.0']);
  });
});
