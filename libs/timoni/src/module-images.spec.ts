import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CueEngine, readFileTree } from '@flotilla/cue';
import { ANNOTATION, RegistryClient, defaultPushModuleOptions, parseReference } from '@flotilla/oci';
import { harnessEnv } from '../../../test/harness/env';
import { ModuleImagesError } from './errors';
import { readModuleImages, withImagesAnnotation } from './module-images';
import { pushTimoniModule } from './module-push';
import { TESTDATA } from './test-support';

const MODULE = join(TESTDATA, 'modules', 'images');

describe('the sh.timoni.images annotation of a module push', () => {
  let cue: CueEngine;
  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 1 });
  });
  afterAll(() => cue.close());

  it('lists the image structs of images.cue by their defaults: regular fields only, sorted and unique', async () => {
    expect(await readModuleImages(cue, readFileTree(MODULE))).toEqual([
      'docker.io/library/busybox@sha256:1111111111111111111111111111111111111111111111111111111111111111',
      'ghcr.io/flotilla/app:1.2.3',
    ]);
  });

  it('gives no annotation without images.cue and keeps one the user set', async () => {
    expect(await withImagesAnnotation(cue, { 'values.cue': 'values: {}\n' }, { a: 'b' })).toEqual({ a: 'b' });
    expect(await withImagesAnnotation(cue, readFileTree(MODULE), { [ANNOTATION.images]: 'mine' })).toEqual({ [ANNOTATION.images]: 'mine' });
  });

  it('refuses an empty repository, a value without default and an invalid reference, naming the struct', async () => {
    const cases: Array<[string, RegExp]> = [
      ['values: a: {repository: "", tag: "1"}\n', /values\.a.*image repository is empty/],
      ['values: a: {repository: string, tag: "1"}\n', /values\.a/],
      ['values: a: {repository: "Upper/Case", tag: "1"}\n', /a: invalid image reference "Upper\/Case:1"/],
    ];
    for (const [text, message] of cases) {
      const err = await readModuleImages(cue, { 'images.cue': text }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ModuleImagesError);
      expect((err as Error).message).toMatch(message);
    }
  });

  it('sets the annotation on the pushed manifest', async () => {
    const client = new RegistryClient();
    const url = `oci://${harnessEnv().registry.host}/timoni-spec/${randomBytes(4).toString('hex')}/modules/images`;
    const pushed = await pushTimoniModule(cue, client, url, MODULE, { ...defaultPushModuleOptions('1.0.0'), annotations: { team: 'web' } });
    const manifest = await client.getManifest({ ...parseReference(url), tag: '1.0.0' });
    expect(manifest.digest).toBe(pushed.digest);
    expect((JSON.parse(manifest.bytes.toString()) as { annotations: Record<string, string> }).annotations).toMatchObject({
      team: 'web',
      [ANNOTATION.version]: '1.0.0',
      [ANNOTATION.images]: 'docker.io/library/busybox@sha256:1111111111111111111111111111111111111111111111111111111111111111,ghcr.io/flotilla/app:1.2.3',
    });
  });
});
