import { CueEngine, readFileTree, type FileTree } from '@flotilla/cue';
import { RegistryClient } from '@flotilla/oci';
import { ComponentBuilder } from './component-build';
import { ModuleBuilder } from './module-builder';
import { ModuleFetcher } from './module-fetch';
import { loadProject } from './project-load';
import { TESTDATA } from './test-support';

// The diamond project lives in testdata/projects and builds the local module
// testdata/modules/app through a relative file:// URL inside the same tree.
describe('ComponentBuilder', () => {
  let cue: CueEngine;
  let files: FileTree;
  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 2 });
    files = readFileTree(TESTDATA);
  });
  afterAll(() => cue.close());

  it('loads the bundle once per distinct runtime input and builds once per distinct instance input', async () => {
    const { project, plan } = await loadProject(cue, files, { path: 'projects/diamond/project.cue' });
    expect(plan.groups).toEqual([['infra'], ['api', 'worker'], ['frontend']]);
    const builder = new ModuleBuilder(cue);
    const components = new ComponentBuilder(cue, new ModuleFetcher(cue, new RegistryClient()), builder);
    const infra = project.components.find((c) => c.name === 'infra')!;
    const clusters = Array.from({ length: 5 }, (_, i) => ({ name: `c${i}`, group: 'prod' }));
    const builds = await Promise.all(clusters.map((cluster) => components.build(files, infra, { cluster })));
    expect(builds.map((b) => b.instances[0].steps[0].objects[0].data)).toEqual(Array(5).fill(expect.objectContaining({ message: 'infra in prod' })));
    expect(builds[0].runtimeValues).toEqual({ TIMONI_CLUSTER_NAME: 'c0', TIMONI_CLUSTER_GROUP: 'prod' });
    expect(builds[0].instances[0].module).toMatchObject({ name: 'flotilla.test/app', version: '0.0.0-devel', digest: 'unknown' });
    expect(components.bundleStats().misses).toBe(1);
    expect(builder.stats().misses).toBe(1);
    await components.build(files, infra, { cluster: { name: 'c9', group: 'dev' } });
    expect(components.bundleStats().misses).toBe(2);
    expect(builder.stats().misses).toBe(2);
  });

  it('queues every CUE call of a project load and component build under the tenant', async () => {
    const calls: Array<{ op: string; tenant: string }> = [];
    const stop = cue.observe((e) => {
      if (e.type === 'dispatch') calls.push({ op: e.op, tenant: e.tenant });
    });
    try {
      const { project } = await loadProject(cue, files, { path: 'projects/diamond/project.cue', tenant: 'apps/diamond' });
      const components = new ComponentBuilder(cue, new ModuleFetcher(cue, new RegistryClient()), new ModuleBuilder(cue));
      const infra = project.components.find((c) => c.name === 'infra')!;
      await components.build(files, infra, { cluster: { name: 'c1', group: 'prod' } }, { tenant: 'apps/diamond' });
    } finally {
      stop();
    }
    expect(new Set(calls.map((c) => c.op))).toEqual(new Set(['evaluate', 'listAttributes', 'rewriteFields', 'mergeValues']));
    expect(calls.filter((c) => c.tenant !== 'apps/diamond')).toEqual([]);
  });

  it('refuses file:// modules outside the project tree', async () => {
    const fetcher = new ModuleFetcher(cue, new RegistryClient());
    await expect(fetcher.fetch({ url: 'file://../../elsewhere', version: 'latest' }, { tree: files, baseDir: 'projects' })).rejects.toThrow('outside the project source');
  });
});
