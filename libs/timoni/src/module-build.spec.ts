import { CueEngine } from '@flotilla/cue';
import { ModuleBuildError } from './errors';
import { buildKey, buildModule, DEFAULT_KUBE_VERSION, kubeVersionOf } from './module-build';
import { ModuleBuilder } from './module-builder';
import { golden, localModule } from './test-support';
import type { LoadedModule } from './types';

const values = (v: unknown) => [{ path: 'bundle.values.json', content: JSON.stringify({ values: v }) }];

describe('buildModule (§2.2)', () => {
  let cue: CueEngine;
  let app: LoadedModule;
  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 1 });
    app = await localModule(cue, 'app', '2.0.1');
  });
  afterAll(() => cue.close());

  it('renders the apply steps in field order, matching the golden objects', async () => {
    const b = await buildModule(cue, {
      instance: 'shop',
      namespace: 'apps',
      module: app,
      values: values({ replicas: 3, test: { enabled: true }, widget: { enabled: true }, ports: [{ name: 'http' }, { name: 'metrics', port: 9091 }] }),
    });
    expect(b.steps.map((s) => s.name)).toEqual(['app', 'addons', 'test']);
    // null skipped, List expanded, Kustomization dropped
    expect(b.steps[1].objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Widget/shop', 'Service/shop-http', 'Service/shop-metrics']);
    const cm = b.steps[0].objects[0];
    expect(cm.metadata.labels).toMatchObject({
      'app.kubernetes.io/version': '2.0.1',
      'instance.timoni.sh/name': 'shop',
      'instance.timoni.sh/namespace': 'apps',
    });
    expect(cm.data).toMatchObject({ kube: DEFAULT_KUBE_VERSION, hosts: '0', upper: 'HELLO FROM SHOP' });
        const deploy = b.steps[0].objects[1] as unknown as { spec: { template: { metadata: { annotations: Record<string, string> } } } };
    expect(deploy.spec.template.metadata.annotations.ratio).toBe('1.0');
    // the float 1.0 comes out as 1, as after Timoni's YAML round trip
    expect(b.steps[1].objects[0].spec).toEqual({ size: 6, ratio: 1 });
    expect(b.images).toEqual(['registry.flotilla.test/app:1.2.3']);
    expect(b.healthChecks).toEqual([
      { name: 'widgets', group: 'widgets.flotilla.test', kind: 'Widget' },
      { name: 'caches', group: 'cache.flotilla.test' },
    ]);
    expect(b.module).toEqual({ name: 'flotilla.test/app', repository: 'file://app', version: '2.0.1', digest: 'unknown' });
    expect(b.values).toContain('replicas: 3');
    const pretty = `${JSON.stringify(b.steps, null, 2)}\n`;
    expect(pretty).toBe(golden('app-shop-steps.json', pretty));
  });

  it('keeps defaults, drops the conditional step and passes kubeVersion through', async () => {
    const b = await buildModule(cue, { instance: 'web', namespace: 'default', module: app, values: [], kubeVersion: '1.31.0-eks-1' });
    expect(b.steps.map((s) => s.name)).toEqual(['app', 'addons']);
    expect(b.steps[0].objects[0].data).toMatchObject({ kube: '1.31.0-eks-1', message: 'hello from web' });
  });

  it('collects every image struct, sorted', async () => {
    const b = await buildModule(cue, {
      instance: 'web',
      namespace: 'default',
      module: app,
      values: values({ sidecar: { repository: 'registry.flotilla.test/proxy', digest: `sha256:${'a'.repeat(64)}` } }),
    });
    expect(b.images).toEqual(['registry.flotilla.test/app:1.2.3', `registry.flotilla.test/proxy@sha256:${'a'.repeat(64)}`]);
  });

  it('fails with incompatible list lengths when the values list is longer than the default', async () => {
    const err = await buildModule(cue, { instance: 'web', namespace: 'default', module: app, values: values({ hosts: ['x'] }) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModuleBuildError);
    expect((err as Error).message).toContain('incompatible list lengths');
  });

  it('replaces a default list by a shorter one, element-wise', async () => {
    const b = await buildModule(cue, { instance: 'web', namespace: 'default', module: app, values: values({ ports: [{ port: 80 }] }) });
    expect(b.steps[1].objects.map((o) => o.metadata.name)).toEqual(['web-http']);
  });

  it('reports a non-concrete instance with file and line', async () => {
    const err = (await buildModule(cue, { instance: 'web', namespace: 'default', module: app, values: values({ replicas: -1 }) }).catch((e: unknown) => e)) as ModuleBuildError;
    expect(err).toBeInstanceOf(ModuleBuildError);
    expect(err.issues.some((i) => i.file?.endsWith('templates/config.cue') && (i.line ?? 0) > 0)).toBe(true);
  });

  it('aggregates object validation errors across steps', async () => {
    const err = (await buildModule(cue, { instance: 'Bad_Name', namespace: 'default', module: app, values: [] }).catch((e: unknown) => e)) as ModuleBuildError;
    expect(err).toBeInstanceOf(ModuleBuildError);
    expect(err.message).toMatch(/Bad_Name|RFC 1123/);
  });

  it('keys builds by their inputs', () => {
    const base = { instance: 'web', namespace: 'default', module: app, values: values({ replicas: 2 }) };
    expect(buildKey(base)).toBe(buildKey({ ...base, values: values({ replicas: 2 }) }));
    expect(buildKey(base)).not.toBe(buildKey({ ...base, values: values({ replicas: 3 }) }));
    expect(buildKey(base)).not.toBe(buildKey({ ...base, kubeVersion: '1.30.0' }));
    expect(buildKey(base)).not.toBe(buildKey({ ...base, namespace: 'other' }));
  });

  it('rejects two health checks for the same target', async () => {
    const dup = 'package main\n\ntimoni: healthChecks: again: {group: "widgets.flotilla.test", kind: "Widget", current: true}\n';
    const module = { ...app, tree: { ...app.tree, 'dup.cue': dup } };
    const err = await buildModule(cue, { instance: 'web', namespace: 'default', module, values: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModuleBuildError);
    // dup.cue comes first in file order, so `widgets` is the one reported
    expect((err as Error).message).toContain('timoni.healthChecks.widgets targets widgets.flotilla.test/Widget as again does');
  });

  it('normalises the API server version as Timoni does', () => {
    expect(kubeVersionOf('v1.36.0')).toBe('1.36.0');
    expect(kubeVersionOf('v1.30.2+k3s1')).toBe('1.30.2+k3s1');
    expect(kubeVersionOf('v1.29.4-eks-036c24b')).toBe('1.29.4-eks-036c24b');
    expect(kubeVersionOf('1.31')).toBe('1.31.0');
    expect(kubeVersionOf('latest')).toBeUndefined();
  });

  it('keeps build errors for identical inputs, and hands out copies', async () => {
    const builder = new ModuleBuilder(cue);
    const bad = { instance: 'web', namespace: 'default', module: app, values: values({ hosts: ['x'] }) };
    await expect(builder.build(bad)).rejects.toBeInstanceOf(ModuleBuildError);
    await expect(builder.build(bad)).rejects.toBeInstanceOf(ModuleBuildError);
    expect(builder.stats()).toMatchObject({ misses: 1, hits: 1 });
    const ok = { instance: 'web', namespace: 'default', module: app, values: [] };
    const [a, b] = await Promise.all([builder.build(ok), builder.build(ok)]);
    expect(a).toEqual(b);
    expect(a.steps).not.toBe(b.steps);
    expect(a.context).toBe(b.context);
  });

  it('keeps integers beyond 2^53 exact from CUE and from the values, within int64 as Timoni does', async () => {
    const exact = await localModule(cue, 'exact', '1.0.0');
    const b = await buildModule(cue, { instance: 'web', namespace: 'default', module: exact, values: [] });
    expect(b.steps[0].objects[0].spec).toEqual({ seed: 9007199254740993n, limit: -9223372036854775808n, max: Number('18446744073709551615'), small: 3 });
    const overlay = [{ path: 'bundle.values.json', content: '{"values":{"seed":-9007199254740993}}' }];
    const o = await buildModule(cue, { instance: 'web', namespace: 'default', module: exact, values: overlay });
    expect(o.steps[0].objects[0].spec).toMatchObject({ seed: -9007199254740993n });
    expect(o.values).toContain('seed:  -9007199254740993');
  });

  it('builds a module whose root package is not main', async () => {
    const tree = { ...app.tree };
    for (const p of ['timoni.cue', 'values.cue']) tree[p] = Buffer.from(tree[p]).toString('utf8').replace('package main', 'package shop');
    const b = await buildModule(cue, { instance: 'web', namespace: 'default', module: { ...app, tree }, values: [] });
    expect(b.steps.map((s) => s.name)).toEqual(['app', 'addons']);
    expect(b.healthChecks.map((h) => h.name)).toEqual(['widgets', 'caches']);
  });
});
