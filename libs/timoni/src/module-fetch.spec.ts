import { join } from 'node:path';
import { CueEngine } from '@flotilla/cue';
import { RegistryClient } from '@flotilla/oci';
import { ModuleFetchError } from './errors';
import { ModuleFetcher, moduleName } from './module-fetch';
import { TESTDATA } from './test-support';

// Registry pulls and digest pins are specified in project-registry.spec.ts.
describe('ModuleFetcher (local modules)', () => {
  let cue: CueEngine;
  let fetcher: ModuleFetcher;
  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 1 });
    fetcher = new ModuleFetcher(cue, new RegistryClient());
  });
  afterAll(() => cue.close());

  it('loads an absolute file:// module as 0.0.0-devel with digest unknown', async () => {
    const m = await fetcher.fetch({ url: `file://${join(TESTDATA, 'modules', 'app')}`, version: 'latest' });
    expect(m.ref).toMatchObject({ name: 'flotilla.test/app', version: '0.0.0-devel', digest: 'unknown' });
    expect(m.treeHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(fetcher.pullCount).toBe(0);
  });

  it('requires the module layout and a module name', async () => {
    await expect(fetcher.fetch({ url: `file://${join(TESTDATA, 'projects')}`, version: 'latest' })).rejects.toThrow('local module has no cue.mod/module.cue');
    await expect(moduleName(cue, { 'cue.mod/module.cue': 'language: version: "v0.17.1"\n' }, 'x')).rejects.toBeInstanceOf(ModuleFetchError);
  });

  it('refuses URLs that carry a tag and bad digests', async () => {
    await expect(fetcher.fetch({ url: 'oci://127.0.0.1:1/m:1.0.0', version: '1.0.0' })).rejects.toThrow(ModuleFetchError);
    await expect(fetcher.fetch({ url: 'oci://127.0.0.1:1/m', version: 'latest', digest: 'sha256:nope' })).rejects.toThrow(ModuleFetchError);
  });
});
