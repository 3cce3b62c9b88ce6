import { join } from 'node:path';
import { CueEngine, readFileTree, type FileTree } from '@flotilla/cue';
import { harnessEnv } from '../../../test/harness/env';
import { RuntimeError } from './errors';
import { loadRuntime } from './runtime-load';
import { annotationValues, decodeBase64, parseRuntimeQuery, readRuntimeValues, resolveRuntimeValues } from './runtime-values';
import { harnessReader, putObject } from './test-kube-reader';
import { TESTDATA } from './test-support';

describe('runtime values against the harness API server (§4)', () => {
  let cue: CueEngine;
  let files: FileTree;
  const kube = () => harnessEnv().kube;
  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 1 });
    files = readFileTree(join(TESTDATA, 'runtimes'));
    const k = kube();
    await putObject(k, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'flotilla-rt' } }).catch(() => undefined);
    await putObject(k, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'flotilla-rt' }, data: { region: 'eu-west', replicas: '3' } });
    await putObject(k, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db-creds', namespace: 'flotilla-rt' },
      data: { password: Buffer.from('p@ss:word\n').toString('base64'), raw: Buffer.from('not base64!').toString('base64') },
    });
  });
  afterAll(() => cue.close());

  it('loads the runtime with clusters in field order', async () => {
    const rt = await loadRuntime(cue, files, ['cluster.cue']);
    expect(rt.name).toBe('fleet');
    expect(rt.clusters.map((c) => `${c.name}:${c.group}`)).toEqual(['eu-1:production', 'us-1:staging']);
    expect(rt.values.map((v) => v.optional)).toEqual([false, false, true, false]);
    expect(rt.values[0].for.map(([k]) => k)).toEqual(['REGION', 'REPLICAS', 'NAME']);
  });

  it('reads a ConfigMap and a Secret, decodes Secret data, skips optional misses, later refs win', async () => {
    const rt = await loadRuntime(cue, files, ['cluster.cue']);
    const values = await readRuntimeValues(cue, rt, harnessReader(kube()));
    expect(values).toEqual({
      REGION: 'eu-west',
      REPLICAS: '3',
      NAME: 'flotilla-rt',
      DB_PASSWORD: 'p@ss:word\n',
      DB_RAW: 'not base64!',
      READY: 'true',
    });
  });

  it('injects the cluster name and group over everything else', async () => {
    const rt = await loadRuntime(cue, files, ['cluster.cue']);
    const values = await resolveRuntimeValues(cue, {
      runtime: rt,
      reader: harnessReader(kube()),
      cluster: { name: 'EU-1', group: '' },
      annotations: { 'runtime.timoni.sh/REGION': 'from-annotation', 'runtime.timoni.sh/TIER': 'gold', 'other.io/x': 'y' },
    });
    expect(values).toMatchObject({ REGION: 'eu-west', TIER: 'gold', TIMONI_CLUSTER_NAME: 'eu-1', TIMONI_CLUSTER_GROUP: 'production' });
    expect(values).not.toHaveProperty('x');
  });

  it('fails when a required object is missing, or the cluster is not declared', async () => {
    const rt = await loadRuntime(cue, files, ['cluster.cue']);
    const missing = { ...rt, values: [{ query: 'k8s:v1:ConfigMap:flotilla-rt:nope', for: [['A', 'obj.data.a']] as Array<[string, string]>, optional: false }] };
    await expect(readRuntimeValues(cue, missing, harnessReader(kube()))).rejects.toThrow('k8s:v1:ConfigMap:flotilla-rt:nope: object not found');
    await expect(resolveRuntimeValues(cue, { runtime: rt, reader: harnessReader(kube()), cluster: { name: 'ap-1', group: 'x' } })).rejects.toThrow(
      'no cluster found named "ap-1"',
    );
  });

  it('fails on a missing field even for optional refs, and on struct results', async () => {
    const rt = await loadRuntime(cue, files, ['cluster.cue']);
    const badField = { ...rt, values: [{ query: 'k8s:v1:ConfigMap:flotilla-rt:cluster-info', for: [['A', 'obj.data.nope']] as Array<[string, string]>, optional: true }] };
    await expect(readRuntimeValues(cue, badField, harnessReader(kube()))).rejects.toBeInstanceOf(RuntimeError);
    const struct = { ...rt, values: [{ query: 'k8s:v1:ConfigMap:flotilla-rt:cluster-info', for: [['A', 'obj.data']] as Array<[string, string]>, optional: false }] };
    await expect(readRuntimeValues(cue, struct, harnessReader(kube()))).rejects.toThrow('gives a struct');
  });
});

describe('runtime helpers', () => {
  it('parses query forms', () => {
    expect(parseRuntimeQuery('k8s:v1:Secret:ns:name')).toEqual({ apiVersion: 'v1', kind: 'Secret', namespace: 'ns', name: 'name' });
    expect(parseRuntimeQuery('k8s:v1:Namespace:default')).toEqual({ apiVersion: 'v1', kind: 'Namespace', name: 'default' });
    expect(parseRuntimeQuery('k8s:a.io/v1:X:one:two:three')).toEqual({ apiVersion: 'a.io/v1', kind: 'X', name: 'one' });
    expect(() => parseRuntimeQuery('k8s:v1:Secret')).toThrow('needs k8s:');
    expect(() => parseRuntimeQuery('kube:v1:Secret:a:b')).toThrow('must start with "k8s:"');
  });

  it('decodes only standard base64', () => {
    expect(decodeBase64('aGVsbG8=')).toBe('hello');
    expect(decodeBase64('aGVs\nbG8=\n')).toBe('hello');
    expect(decodeBase64('hello')).toBeUndefined();
    expect(decodeBase64('aGVsbG8')).toBeUndefined();
  });

  it('maps the RFC annotations to TIMONI_CLUSTER_*', () => {
    expect(annotationValues({ 'runtime.timoni.sh/cluster': 'k8s-prod-1', 'runtime.timoni.sh/group': 'production' })).toEqual({
      TIMONI_CLUSTER_NAME: 'k8s-prod-1',
      TIMONI_CLUSTER_GROUP: 'production',
    });
  });

  it('takes the cluster from the annotations when no identity is given, and none for _default', async () => {
    const cue = await CueEngine.start({ poolSize: 1 });
    try {
      expect(await resolveRuntimeValues(cue, { annotations: { 'runtime.timoni.sh/cluster': 'k1', 'runtime.timoni.sh/group': 'g' } })).toEqual({
        TIMONI_CLUSTER_NAME: 'k1',
        TIMONI_CLUSTER_GROUP: 'g',
      });
      expect(await resolveRuntimeValues(cue, { cluster: { name: '_default', group: '_default' } })).toEqual({});
    } finally {
      await cue.close();
    }
  });
});
