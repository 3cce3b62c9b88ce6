import { CueEngine, readFileTree, type FileTree } from '@flotilla/cue';
import { RegistryClient } from '@flotilla/oci';
import { ComponentBuilder } from './component-build';
import { ModuleBuilder } from './module-builder';
import { ModuleFetcher } from './module-fetch';
import { vetProject } from './project-vet';
import { TESTDATA } from './test-support';

describe('vetProject', () => {
  let cue: CueEngine;
  let files: FileTree;
  let components: ComponentBuilder;
  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 2 });
    files = readFileTree(TESTDATA);
    components = new ComponentBuilder(cue, new ModuleFetcher(cue, new RegistryClient()), new ModuleBuilder(cue));
  });
  afterAll(() => cue.close());

  it('builds every instance of a valid project for one cluster', async () => {
    const report = await vetProject(cue, components, files, { cluster: { name: 'k1', group: 'staging' } }, { path: 'projects/diamond/project.cue' });
    expect(report.issues).toEqual([]);
    expect(report.ok).toBe(true);
    expect(Object.keys(report.built)).toEqual(['infra', 'api', 'worker', 'frontend']);
    expect(report.built.api[0].steps[0].objects[0].data).toMatchObject({ message: 'api in staging' });
  });

  it('reports project errors as issues instead of throwing', async () => {
    const report = await vetProject(cue, components, files, {}, { path: 'projects/broken/deploy/project.cue' });
    expect(report.ok).toBe(false);
    expect(report.project).toBeUndefined();
    expect(report.issues.map((i) => `${i.file}:${i.line}`)).toContain('projects/broken/deploy/project.cue:7');
  });
});
