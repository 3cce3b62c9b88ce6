// The libs/timoni adapter against the harness registry and the CUE engine.
import { CueEngine } from '@flotilla/cue';
import { RegistryClient, pushModule, defaultPushModuleOptions } from '@flotilla/oci';
import { TransientGeneratorError } from './errors';
import { TimoniManifestGenerator } from './timoni-generator';
import type { ComponentRequest, SourceFiles } from './types';
import { MODULE_DIR, registryHost, unique } from '../testdata/harness';

jest.setTimeout(120_000);

let cue: CueEngine;
beforeAll(async () => {
  cue = await CueEngine.start({ poolSize: 1 });
});
afterAll(() => cue?.close());

const files = (module: string, version: string, digest?: string): SourceFiles => ({
  'project.cue': 'project: {\n\tapiVersion: "v1alpha1"\n\tname: "gen"\n\tcomponents: one: {bundle: ["./b.cue"], timeout: "90s"}\n}\n',
  'b.cue': `bundle: {
	apiVersion: "v1alpha1"
	name:       "b"
	instances: app: {
		module: {url: "${module}", version: "${version}"${digest ? `, digest: "${digest}"` : ''}}
		namespace: "apps"
		values: message: "hi"
	}
}
`,
});

describe('TimoniManifestGenerator', () => {
  const registry = new RegistryClient();
  let module: string;
  let digest: string;
  beforeAll(async () => {
    module = `oci://${registryHost()}/modules/${unique('gen')}`;
    digest = (await pushModule(registry, module, MODULE_DIR, defaultPushModuleOptions('1.2.0'))).digest;
  });

  async function render(tree: SourceFiles, generator = new TimoniManifestGenerator(cue), client = registry) {
    const plan = await generator.loadProject(tree, 'project.cue');
    const req: ComponentRequest = {
      files: tree, project: plan, component: plan.components[0], registry: client, signal: new AbortController().signal,
      target: { cluster: { name: 'c1', group: 'g' }, annotations: {}, reader: { get: async () => null }, kubeVersion: '1.36.3' },
    };
    const bundle = await generator.bundle(req, await generator.runtimeValues(req));
    return { plan, bundle, build: () => generator.buildInstance(req, bundle, 'app') };
  }

  it('plans the project (cached per tree) and builds a tag-versioned module, recorded with its version and digest', async () => {
    const generator = new TimoniManifestGenerator(cue);
    const tree = files(module, '1.2.0');
    const { plan, bundle, build } = await render(tree, generator);
    expect(plan.components).toEqual([{ name: 'one', needs: [], wait: false, timeoutMs: 90_000 }]);
    expect(await generator.loadProject(tree, 'project.cue')).toBe(plan);
    expect(generator.stats().projectLoads).toBe(1);
    expect(bundle.instances).toEqual([{ name: 'app', namespace: 'apps' }]);
    const built = await build();
    expect(built.module).toEqual({ name: 'flotilla.test/configs', repository: module, version: '1.2.0', digest });
    expect(built.steps[0].objects[0]).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'app-config', namespace: 'apps' }, data: { message: 'hi', module: '1.2.0', kube: '1.36.3' } });
    expect(built.healthCheck).toBeUndefined();
    await build();
    expect(generator.stats().builds.misses).toBe(1);
  });

  it("queues every CUE call under the request's tenant", async () => {
    const generator = new TimoniManifestGenerator(cue);
    const tree = files(module, '1.2.0');
    const tenants: string[] = [];
    const stop = cue.observe((e) => {
      if (e.type === 'dispatch') tenants.push(e.tenant);
    });
    try {
      const plan = await generator.loadProject(tree, 'project.cue', 'apps/gen');
      const req: ComponentRequest = {
        files: tree, project: plan, component: plan.components[0], registry, signal: new AbortController().signal, tenant: 'apps/gen',
        target: { cluster: { name: 'c1', group: 'g' }, annotations: {}, reader: { get: async () => null }, kubeVersion: '1.36.3' },
      };
      const bundle = await generator.bundle(req, await generator.runtimeValues(req));
      await generator.buildInstance(req, bundle, 'app');
    } finally {
      stop();
    }
    expect(tenants.length).toBeGreaterThanOrEqual(4);
    expect(new Set(tenants)).toEqual(new Set(['apps/gen']));
  });

  it('builds that ask for a tag at once share its resolution; a later build resolves it again', async () => {
    const heads: string[] = [];
    const counting = new RegistryClient({
      fetch: (input, init) => {
        if (init?.method === 'HEAD') heads.push(String(input));
        return fetch(input, init);
      },
    });
    const { build } = await render(files(module, '1.2.0'), new TimoniManifestGenerator(cue), counting);
    const together = await Promise.all([build(), build(), build()]);
    expect(together.map((b) => b.module.digest)).toEqual([digest, digest, digest]);
    const tagHeads = () => heads.filter((u) => u.endsWith('/manifests/1.2.0')).length;
    expect(tagHeads()).toBe(1);
    await build();
    expect(tagHeads()).toBe(2);
  });

  it('a module version the registry does not have is transient (it may be pushed later)', async () => {
    const { build } = await render(files(module, '9.9.9'));
    await expect(build()).rejects.toBeInstanceOf(TransientGeneratorError);
  });

  it('a digest pin that does not match is not transient', async () => {
    const wrong = `sha256:${'1'.repeat(64)}`;
    const { build } = await render(files(module, '1.2.0', wrong));
    const err = await build().catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(TransientGeneratorError);
    expect((err as Error).message).toContain(wrong);
  });
});
