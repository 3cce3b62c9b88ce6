import { CueEngine } from './engine';
import { CueEvaluationError, CueInputError } from './errors';
import { INSTANCE_TAGS, TAG_VARS, webappTree } from './test-support';
import type { CueDiagnostic, EvaluateRequest } from './types';

describe('CueEngine errors', () => {
  let engine: CueEngine;
  beforeAll(async () => {
    engine = await CueEngine.start({ poolSize: 1 });
  });
  afterAll(() => engine.close());

  async function diagnostics(req: EvaluateRequest): Promise<CueDiagnostic[]> {
    const err = await engine.evaluate(req).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CueEvaluationError);
    return (err as CueEvaluationError).diagnostics;
  }

  it('reports a syntax error with file, line and column', async () => {
    const tree = webappTree();
    tree['templates/broken.cue'] = 'package templates\n\n#Broken: {\n\tname: "x"\n\tport: 80 80\n}\n';
    const [d] = await diagnostics({ files: tree, tags: INSTANCE_TAGS, tagVars: TAG_VARS, exports: [{ path: 'timoni.apply' }] });
    expect(d).toMatchObject({ file: 'templates/broken.cue', line: 5, column: 11 });
    expect(d.message).toMatch(/expected '}', found 80|missing ','/);
  });

  it('reports every conflicting value, each with its positions', async () => {
    const files = { 'a.cue': 'package main\nx: 1\ny: "a"\nx: 2\ny: "b"\n' };
    const ds = await diagnostics({ files, exports: [{ path: '' }] });
    expect(ds).toHaveLength(2);
    expect(ds[0]).toMatchObject({ message: 'x: conflicting values 2 and 1', path: 'x', file: 'a.cue', line: 2, column: 4 });
    expect(ds[0].positions).toEqual([
      { file: 'a.cue', line: 2, column: 4 },
      { file: 'a.cue', line: 4, column: 4 },
    ]);
    expect(ds[1]).toMatchObject({ message: 'y: conflicting values "b" and "a"', path: 'y', file: 'a.cue', line: 3 });
  });

  it('reports a conflict inside the module against the vendored Kubernetes schema', async () => {
    const ds = await diagnostics({
      files: webappTree(),
      tags: INSTANCE_TAGS,
      tagVars: TAG_VARS,
      fills: [{ path: 'values', json: { port: 70000 } }],
      checks: [{ path: 'timoni.instance', concrete: true }],
    });
    expect(ds).toContainEqual(
      expect.objectContaining({
        path: 'values.port',
        message: 'values.port: invalid value 70000 (out of bound <=65535)',
        file: 'templates/config.cue',
        line: 19,
        column: 33,
      }),
    );
  });

  it('reports an incomplete value at the field that stays open', async () => {
    const files = { 'a.cue': 'package main\n\n#Config: replicas: int & >0\nconfig: #Config\n' };
    const [d] = await diagnostics({ files, exports: [{ path: 'config' }] });
    expect(d).toMatchObject({ path: 'config.replicas', file: 'a.cue', line: 4, column: 9 });
    expect(d.message).toBe('config.replicas: incomplete value >0 & int');
  });

  it('reports a missing instance tag as an incomplete value at its @tag field', async () => {
    const ds = await diagnostics({
      files: webappTree(),
      tags: { namespace: 'apps' },
      tagVars: TAG_VARS,
      checks: [{ path: 'timoni.instance', concrete: true }],
    });
    // CUE points at the constraint left open: the vendored #Metadata.name.
    expect(ds).toContainEqual(
      expect.objectContaining({
        path: 'timoni.instance.config.metadata.name',
        message: 'timoni.instance.config.metadata.name: incomplete value strings.MaxRunes(63)',
        file: 'cue.mod/pkg/timoni.sh/core/v1alpha1/metadata.cue',
        line: 9,
        column: 18,
      }),
    );
  });

  it('reports a missing required field (!:) by its declaration', async () => {
    const files = { 'a.cue': 'package main\n#Image: {repository!: string, tag: *"latest" | string}\nimage: #Image & {tag: "1"}\n' };
    const [d] = await diagnostics({ files, exports: [{ path: 'image' }] });
    expect(d).toMatchObject({ path: 'image.repository', file: 'a.cue', line: 2, column: 10 });
    expect(d.message).toContain('field is required but not present');
  });

  it('reports a tag the module does not declare', async () => {
    const [d] = await diagnostics({ files: { 'a.cue': 'package main\nx: 1\n' }, tags: { name: 'shop' } });
    expect(d.message).toBe('no tag for "name"');
    expect(d.file).toBeUndefined();
  });

  it('leaves a declared but unset tag incomplete, at its field', async () => {
    const files = { 'a.cue': 'package main\n\nname: string @tag(name)\n' };
    const [d] = await diagnostics({ files, exports: [{ path: 'name' }] });
    expect(d).toMatchObject({ path: 'name', file: 'a.cue', line: 3, column: 7 });
  });

  it('reports an import of a package that is not in the tree, at the import', async () => {
    const tree = webappTree();
    tree['templates/extra.cue'] = 'package templates\n\nimport "k8s.io/api/networking/v1"\n\n#Ingress: v1.#Ingress\n';
    const [d] = await diagnostics({ files: tree, tags: INSTANCE_TAGS, tagVars: TAG_VARS, exports: [{ path: 'timoni.apply' }] });
    expect(d.positions).toContainEqual({ file: 'templates/extra.cue', line: 3, column: 8 });
    expect(d.message).toContain('k8s.io/api/networking/v1');
  });

  it('does not fetch modules from a registry', async () => {
    const files = {
      'cue.mod/module.cue': 'module: "flotilla.test/m"\nlanguage: version: "v0.17.1"\ndeps: "example.com/dep@v0": v: "v0.1.0"\n',
      'a.cue': 'package main\nimport "example.com/dep"\nx: dep.y\n',
    };
    const ds = await diagnostics({ files, exports: [{ path: 'x' }] });
    expect(ds.map((d) => d.message).join('\n')).toMatch(/registry access is disabled/);
  });

  it('rejects paths that leave the tree as bad input', async () => {
    const err = await engine.evaluate({ files: { '../x.cue': 'x: 1' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CueInputError);
    expect((err as Error).message).toContain('leaves the tree');
  });
});
