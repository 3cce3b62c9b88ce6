import { join } from 'node:path';
import { CueEngine, readFileTree, type FileTree } from '@flotilla/cue';
import { loadBundle } from './bundle-load';
import { BundleError, RuntimeAttributeError } from './errors';
import { TESTDATA } from './test-support';

const PATHS = ['attributes.cue', 'secrets.cue', 'extra.yaml'];

describe('loadBundle (§3)', () => {
  let cue: CueEngine;
  let files: FileTree;
  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 1 });
    files = readFileTree(join(TESTDATA, 'bundles'));
  });
  afterAll(() => cue.close());

  it('injects string, number and bool values and keeps instances in field order', async () => {
    const b = await loadBundle(cue, {
      files,
      paths: PATHS,
      values: { MESSAGE: 'hi\nthere', REPLICAS: '0x10', RATIO: '1.5', TESTS: 'true', TIMONI_CLUSTER_NAME: 'eu-1', TIMONI_CLUSTER_GROUP: 'prod', TOKEN: 's3cr3t' },
    });
    expect(b.name).toBe('attrs');
    expect(b.instances.map((i) => i.name)).toEqual(['zeta', 'alpha']);
    const [zeta, alpha] = b.instances;
    expect(zeta.module).toEqual({ url: 'oci://registry.flotilla.test/modules/app', version: '1.0.0' });
    // ratio? keeps its marker (Timoni keeps it too), so it stays an optional field
    expect(JSON.parse(zeta.values)).toEqual({ message: 'hi\nthere', replicas: 16, test: { enabled: true } });
    expect(alpha.module.version).toBe('latest');
    expect(JSON.parse(alpha.values)).toEqual({ message: 'cluster eu-1 in prod', token: 's3cr3t', replicas: 2 });
    expect(alpha.namespace).toBe('apps');
    expect(b.injected).toMatchObject({ MESSAGE: 'hi\nthere', NAMESPACE: undefined, NOT_SET: undefined });
    expect(b.injected).not.toHaveProperty('IGNORED');
  });

  it('falls back to defaults when a name has no value; optional fields stay absent', async () => {
    const b = await loadBundle(cue, { files, paths: PATHS, values: { MESSAGE: 'm' } });
    expect(JSON.parse(b.instances[0].values)).toEqual({ message: 'm', replicas: 1, test: { enabled: false } });
    expect(JSON.parse(b.instances[1].values)).toMatchObject({ message: 'cluster local in dev', token: 'none' });
  });

  it('fails on a required attribute without value, naming file and line', async () => {
    const err = (await loadBundle(cue, { files, paths: PATHS, values: {} }).catch((e: unknown) => e)) as BundleError;
    expect(err).toBeInstanceOf(BundleError);
    expect(err.issues.some((i) => i.file === 'attributes.cue' && i.line === 13)).toBe(true);
  });

  it('rejects values that do not parse as their type', async () => {
    const bool = (await loadBundle(cue, { files, paths: PATHS, values: { MESSAGE: 'm', TESTS: 'yes' } }).catch((e: unknown) => e)) as RuntimeAttributeError;
    expect(bool).toBeInstanceOf(RuntimeAttributeError);
    expect(bool.issues[0]).toMatchObject({ file: 'attributes.cue', line: 16 });
    expect(bool.message).toContain('"yes" is not a bool');
    const num = (await loadBundle(cue, { files, paths: PATHS, values: { MESSAGE: 'm', REPLICAS: 'three' } }).catch((e: unknown) => e)) as RuntimeAttributeError;
    expect(num).toBeInstanceOf(RuntimeAttributeError);
    expect(num.message).toContain('failed to parse attribute');
    expect(num.issues[0]).toMatchObject({ file: 'attributes.cue', line: 14 });
  });

  it('rejects an unknown type when its name has a value', async () => {
    const err = await loadBundle(cue, { files, paths: PATHS, values: { MESSAGE: 'm', NOT_SET: 'v' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RuntimeAttributeError);
    expect((err as Error).message).toContain('unknown runtime attribute type "weird"');
  });

  it('enforces the Bundle schema: closed module, name rules', async () => {
    const bad: FileTree = {
      'b.cue': 'bundle: {\n\tapiVersion: "v1alpha1"\n\tname: "Bad Name"\n\tinstances: x: {module: {url: "oci://r/m", tag: "1"}, namespace: "ns"}\n}\n',
    };
    const err = (await loadBundle(cue, { files: bad, paths: ['b.cue'], values: {} }).catch((e: unknown) => e)) as BundleError;
    expect(err).toBeInstanceOf(BundleError);
    const text = err.issues.map((i) => `${i.file}:${i.line} ${i.message}`).join('\n');
    expect(text).toMatch(/b\.cue:3 .*name/);
    expect(text).toMatch(/b\.cue:4 .*tag/);
  });

  it('rejects conflicting files, unknown extensions, missing files and empty bundles', async () => {
    const conflict: FileTree = { 'a.cue': 'bundle: name: "a"\n', 'b.cue': 'bundle: name: "b"\n' };
    await expect(loadBundle(cue, { files: conflict, paths: ['a.cue', 'b.cue'], values: {} })).rejects.toThrow(/conflicting values/);
    await expect(loadBundle(cue, { files: { 'b.txt': '' }, paths: ['b.txt'], values: {} })).rejects.toThrow('must be .cue, .json, .yaml or .yml');
    await expect(loadBundle(cue, { files: {}, paths: ['gone.cue'], values: {} })).rejects.toThrow('bundle file not found');
    const empty: FileTree = { 'e.cue': 'bundle: {apiVersion: "v1alpha1", name: "e", instances: {}}\n' };
    await expect(loadBundle(cue, { files: empty, paths: ['e.cue'], values: {} })).rejects.toThrow('bundle has no instances');
  });
});
