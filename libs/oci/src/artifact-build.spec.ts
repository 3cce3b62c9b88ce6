import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FIXTURE_MODULE, snapshotTree, streamOf, tempDir } from '../testdata/helpers';
import { buildArtifactImage, buildModuleImage } from './artifact-build';
import { ArtifactFormatError } from './errors';
import { ANNOTATION, OCI_MANIFEST, TIMONI_CONFIG, TIMONI_CONTENT, TIMONI_CONTENT_TYPE_ANNOTATION } from './media-types';
import { extractLayers } from './tarball-extract';
import type { BuiltLayer } from './artifact-build';

const FIXTURE = FIXTURE_MODULE;

async function layerTree(layer: BuiltLayer): Promise<Record<string, string>> {
  const dir = join(await tempDir(), 'x');
  await extractLayers([streamOf(layer.data)], dir);
  return snapshotTree(dir);
}

describe('buildModuleImage', () => {
  it('builds the vendor layer then the module layer with their content types', async () => {
    const image = await buildModuleImage(FIXTURE, { version: '1.2.3', annotations: { team: 'fleet', [ANNOTATION.version]: 'overwritten' } });
    expect(image.manifest.mediaType).toBe(OCI_MANIFEST);
    expect(image.manifest.config.mediaType).toBe(TIMONI_CONFIG);
    expect(image.manifest.annotations).toEqual({ team: 'fleet', [ANNOTATION.version]: '1.2.3' });
    expect(image.manifest.layers.map((l) => [l.mediaType, l.annotations?.[TIMONI_CONTENT_TYPE_ANNOTATION]])).toEqual([
      [TIMONI_CONTENT, 'module/vendor'],
      [TIMONI_CONTENT, 'module'],
    ]);
    expect(Object.keys(await layerTree(image.layers[0]!))).toEqual([
      'cue.mod/',
      'cue.mod/module.cue',
      'cue.mod/pkg/',
      'cue.mod/pkg/timoni.sh/',
      'cue.mod/pkg/timoni.sh/core/',
      'cue.mod/pkg/timoni.sh/core/v1alpha1/',
      'cue.mod/pkg/timoni.sh/core/v1alpha1/instance.cue',
    ]);
    // timoni.ignore drops README.md, debug_values.cue and ignore/; it does not ignore itself.
    expect(Object.keys(await layerTree(image.layers[1]!))).toEqual(['templates/', 'templates/config.cue', 'timoni.cue', 'timoni.ignore', 'values.cue']);
  });

  it('gives the same digest for the same directory twice, and a new one after a change', async () => {
    const copy = join(await tempDir(), 'module');
    await cp(FIXTURE, copy, { recursive: true });
    const a = await buildModuleImage(copy, { version: '1.0.0', annotations: {} });
    const b = await buildModuleImage(copy, { version: '1.0.0', annotations: {} });
    expect(b.digest).toBe(a.digest);
    expect(b.manifestBytes.equals(a.manifestBytes)).toBe(true);
    await writeFile(join(copy, 'README.md'), 'ignored change');
    expect((await buildModuleImage(copy, { version: '1.0.0', annotations: {} })).digest).toBe(a.digest);
    await writeFile(join(copy, 'values.cue'), 'package main\nvalues: message: "changed"\n');
    expect((await buildModuleImage(copy, { version: '1.0.0', annotations: {} })).digest).not.toBe(a.digest);
  });

  it('refuses versions that are not strict SemVer or carry build metadata', async () => {
    await expect(buildModuleImage(FIXTURE, { version: 'v1.0.0', annotations: {} })).rejects.toThrow(ArtifactFormatError);
    await expect(buildModuleImage(FIXTURE, { version: '1.0.0+abc', annotations: {} })).rejects.toThrow(/build metadata/);
  });

  it('uses explicit ignore patterns instead of timoni.ignore when given', async () => {
    const image = await buildModuleImage(FIXTURE, { version: '1.0.0', annotations: {}, ignore: ['templates/'] });
    expect(Object.keys(await layerTree(image.layers[1]!))).toEqual(['README.md', 'debug_values.cue', 'ignore/', 'ignore/secret.cue', 'timoni.cue', 'timoni.ignore', 'values.cue']);
  });
});

describe('buildArtifactImage', () => {
  it('builds one layer with the content type and no version annotation', async () => {
    const image = await buildArtifactImage(FIXTURE, { contentType: 'timoni.sh/bundles', annotations: { a: 'b' } });
    expect(image.manifest.layers).toHaveLength(1);
    expect(image.manifest.layers[0]!.annotations).toEqual({ [TIMONI_CONTENT_TYPE_ANNOTATION]: 'timoni.sh/bundles' });
    expect(image.manifest.annotations).toEqual({ a: 'b' });
    const tree = await layerTree(image.layers[0]!);
    expect(tree['cue.mod/module.cue']).toContain('flotilla.test/fixture');
    expect(tree['README.md']).toBeUndefined();
  });

  it('packs a single file under its base name', async () => {
    const image = await buildArtifactImage(join(FIXTURE, 'values.cue'), { contentType: 'generic', annotations: {} });
    expect(await layerTree(image.layers[0]!)).toEqual({ 'values.cue': 'package main\n\nvalues: message: "hello from the fixture"\n' });
  });
});
