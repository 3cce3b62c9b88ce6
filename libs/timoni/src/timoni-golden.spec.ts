// Flotilla's builds against what the real Timoni CLI built from the same
// modules, values and bundle (testdata/timoni-golden/out, written by its
// regenerate.sh). Objects are compared one by one, in order, after taking
// away the two instance labels Flotilla stamps at build time and Timoni at
// apply time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CueEngine, readFileTree, type FileTree } from '@flotilla/cue';
import { parseExactJson } from '@flotilla/json';
import { RegistryClient } from '@flotilla/oci';
import { loadBundle } from './bundle-load';
import { ComponentBuilder } from './component-build';
import { ModuleBuildError } from './errors';
import { buildModule, hashTree, DEVEL_VERSION } from './module-build';
import { ModuleBuilder } from './module-builder';
import { ModuleFetcher } from './module-fetch';
import { INSTANCE_NAME_LABEL, INSTANCE_NAMESPACE_LABEL } from './object-validate';
import { TESTDATA } from './test-support';
import type { InstanceBuild, KubeObject, LoadedModule } from './types';

const GOLDEN = join(TESTDATA, 'timoni-golden');
const out = (name: string) => readFileSync(join(GOLDEN, 'out', name), 'utf8');

function moduleAt(name: string): LoadedModule {
  const tree = readFileTree(join(GOLDEN, 'modules', name));
  return { tree, treeHash: hashTree(tree), ref: { name: `flotilla.test/${name}`, repository: `file://${name}`, version: DEVEL_VERSION, digest: 'unknown' } };
}

function valuesFile(name: string) {
  return { path: `values/${name}`, content: readFileSync(join(GOLDEN, 'values', name), 'utf8') };
}

/** The objects as Timoni would have them before apply. */
function objectsOf(build: InstanceBuild): unknown[] {
  return build.steps.flatMap((s) => s.objects).map((o: KubeObject) => {
    const copy = structuredClone(o);
    const labels = { ...copy.metadata.labels };
    delete labels[INSTANCE_NAME_LABEL];
    delete labels[INSTANCE_NAMESPACE_LABEL];
    if (Object.keys(labels).length > 0) copy.metadata.labels = labels;
    else delete copy.metadata.labels;
    return copy;
  });
}

/** Timoni's YAML with integers as Flotilla holds them: bigint only where a number would lose digits. */
function yamlObjects(text: string): unknown[] {
  const exact = (v: unknown): unknown => {
    if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v;
    if (Array.isArray(v)) return v.map(exact);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, exact(x)]));
    return v;
  };
  return parseAllDocuments(text, { intAsBigInt: true })
    .map((d) => exact(d.toJS()))
    .filter((o) => o !== null);
}

describe('builds match the real Timoni CLI', () => {
  let cue: CueEngine;
  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 1 });
  });
  afterAll(() => cue.close());

  const cases: Array<[string, string, string, string, string[]]> = [
    ['checksum-defaults.json', 'checksum', 'web', 'apps', []],
    ['checksum-values.json', 'checksum', 'web', 'apps', ['checksum-a.cue', 'checksum-b.yaml']],
    ['exact.json', 'exact', 'web', 'default', []],
    ['items.json', 'items', 'web', 'apps', []],
  ];
  it.each(cases)('timoni build → %s', async (golden, module, instance, namespace, values) => {
    const build = await buildModule(cue, { instance, namespace, module: moduleAt(module), values: values.map(valuesFile) });
    const timoni = (parseExactJson(out(golden)) as { items: unknown[] }).items;
    expect(objectsOf(build)).toEqual(timoni);
  });

  it('timoni bundle build → fleet.yaml: several instances, runtime values, checksums', async () => {
    const files: FileTree = readFileTree(GOLDEN);
    const bundle = await loadBundle(cue, { files, paths: ['bundles/fleet.cue'], values: { TEAM: 'platform' } });
    const components = new ComponentBuilder(cue, new ModuleFetcher(cue, new RegistryClient()), new ModuleBuilder(cue));
    const objects: unknown[] = [];
    for (let i = 0; i < bundle.instances.length; i++) objects.push(...objectsOf(await components.instance(files, bundle, i)));
    expect(objects).toEqual(yamlObjects(out('fleet.yaml')));
  });

  it('timoni inspect values → stored-*.cue: the values stored in the instance state, evaluated', async () => {
    const files: FileTree = readFileTree(GOLDEN);
    const bundle = await loadBundle(cue, { files, paths: ['bundles/stored.cue'], values: {} });
    const components = new ComponentBuilder(cue, new ModuleFetcher(cue, new RegistryClient()), new ModuleBuilder(cue));
    for (let i = 0; i < bundle.instances.length; i++) {
      const build = await components.instance(files, bundle, i);
      // `timoni inspect values` prints "values:", the stored text and a newline
      expect(`values: ${build.values}\n`).toBe(out(`stored-${build.instance}.cue`));
      expect(build.values).not.toMatch(/_cpu|_mcpu|\\\(/);
    }
  });

  it('timoni build with bad values → checksum-bad.txt: the same problems, at the line of the file the user wrote, root causes first', async () => {
    const err = await buildModule(cue, { instance: 'web', namespace: 'apps', module: moduleAt('checksum'), values: [valuesFile('checksum-bad.cue')] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModuleBuildError);
    const issues = (err as ModuleBuildError).issues;
    // Timoni's problems, without the "N errors in empty disjunction" headers
    // that only announce the lines after them.
    const timoni = out('checksum-bad.txt')
      .split('\n')
      .filter((l) => /^\S+: /.test(l) && !l.startsWith('ERR ') && !/errors in empty disjunction/.test(l))
      .map((l) => l.replace(/:$/, ''));
    expect(timoni.length).toBeGreaterThan(0);
    for (const message of timoni) expect(issues.map((i) => i.message)).toContain(message);
    // Timoni points at line 4 of the merged text; that field is line 4 of the user's file.
    expect(issues[0]).toMatchObject({ message: timoni[0], file: 'values/checksum-bad.cue', line: 4 });
    expect(issues.find((i) => i.message.startsWith('values.app.image.tag'))).toMatchObject({ file: 'values/checksum-bad.cue', line: 5 });
    const derived = issues.map((i) => / invalid interpolation: /.test(i.message));
    expect(derived.indexOf(true)).toBeGreaterThan(derived.lastIndexOf(false));
  });

  it('names a YAML values file and its own line, and the module values.cue for a default', async () => {
    const bad = { path: 'values/bad.yaml', content: 'values:\n  labels:\n    tier: front\n  app:\n    replicas: -2\n' };
    const err = (await buildModule(cue, { instance: 'web', namespace: 'apps', module: moduleAt('checksum'), values: [bad] }).catch((e: unknown) => e)) as ModuleBuildError;
    expect(err).toBeInstanceOf(ModuleBuildError);
    expect(err.issues[0]).toMatchObject({ file: 'values/bad.yaml', line: 5 });
    const module = moduleAt('checksum');
    module.tree['values.cue'] = String(module.tree['values.cue']).replace('replicas: 1', 'replicas: -3');
    const fromDefault = (await buildModule(cue, { instance: 'web', namespace: 'apps', module, values: [] }).catch((e: unknown) => e)) as ModuleBuildError;
    expect(fromDefault.issues[0]).toMatchObject({ file: 'values.cue', line: String(module.tree['values.cue']).split('\n').indexOf('\t\treplicas: -3') + 1 });
  });
});
