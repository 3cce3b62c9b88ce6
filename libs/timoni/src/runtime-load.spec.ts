import { CueEngine } from '@flotilla/cue';
import { RuntimeError } from './errors';
import { loadRuntime } from './runtime-load';

describe('loadRuntime (§4.1)', () => {
  let cue: CueEngine;
  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 1 });
  });
  afterAll(() => cue.close());

  it('needs no clusters or values and does not bind #Runtime', async () => {
    const rt = await loadRuntime(cue, { 'r.cue': 'runtime: name: "plain"\nruntime: extra: true\n' }, ['r.cue']);
    expect(rt).toEqual({ name: 'plain', clusters: [], values: [], files: ['r.cue'] });
  });

  it('validates against #Runtime when the author binds it, with the user file position', async () => {
    const src = 'runtime: #Runtime & {\n\tapiVersion: "v1alpha1"\n\tname: "Bad_Name"\n}\n';
    const err = (await loadRuntime(cue, { 'r.cue': src }, ['r.cue']).catch((e: unknown) => e)) as RuntimeError;
    expect(err).toBeInstanceOf(RuntimeError);
    expect(err.issues[0]).toMatchObject({ file: 'r.cue', line: 3 });
  });

  it('unifies several files, YAML included, and requires a name', async () => {
    const files = { 'a.cue': 'runtime: name: "multi"\n', 'b.yaml': 'runtime:\n  values:\n    - query: "k8s:v1:Namespace:default"\n      for:\n        UID: "obj.metadata.uid"\n' };
    const rt = await loadRuntime(cue, files, ['a.cue', 'b.yaml']);
    expect(rt.values).toEqual([{ query: 'k8s:v1:Namespace:default', for: [['UID', 'obj.metadata.uid']], optional: false }]);
    await expect(loadRuntime(cue, { 'n.cue': 'runtime: {}\n' }, ['n.cue'])).rejects.toThrow('runtime.name (a string) is required');
  });
});
