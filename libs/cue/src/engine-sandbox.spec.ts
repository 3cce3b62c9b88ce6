import { CueEngine } from './engine';
import { CueEvaluationError, CueInputError } from './errors';
import { webappTree } from './test-support';

// CUE sees only the tree of each call: no host files, environment or registry.
describe('CueEngine sandbox', () => {
  let engine: CueEngine;
  beforeAll(async () => {
    engine = await CueEngine.start({ poolSize: 1 });
  });
  afterAll(() => engine.close());

  async function failure(req: Parameters<CueEngine['evaluate']>[0]): Promise<Error> {
    return engine.evaluate(req).then(
      () => {
        throw new Error('expected the evaluation to fail');
      },
      (e: Error) => e,
    );
  }

  it('cannot embed a host file', async () => {
    const files = webappTree();
    files['templates/leak.cue'] = '@extern(embed)\n\npackage templates\n\nleak: _ @embed(file="../../../../../etc/hostname", type=text)\n';
    const err = await failure({ files, dir: 'templates', exports: [{ path: 'leak' }] });
    expect(err).toBeInstanceOf(CueEvaluationError);
    expect((err as CueEvaluationError).diagnostics[0]).toMatchObject({ file: 'templates/leak.cue', line: 5 });
  });

  it('does not see host directories as packages', async () => {
    const err = await failure({ files: { 'a.cue': 'package main\nx: 1\n' }, dir: 'etc' });
    expect(err.message).toMatch(/no CUE files|cannot find package|not found/i);
  });

  it('offers no tag variables beyond the ones given (no hostname, cwd, env)', async () => {
    const files = { 'a.cue': 'package main\nh: string @tag(h, var=hostname)\n' };
    const err = await failure({ files, tagVars: { moduleVersion: '1.0.0' }, exports: [{ path: 'h' }] });
    expect(err.message).toContain("tag variable 'hostname' not found");
  });

  it('resolves imports and @embed from the tree when loading standalone files with a cue.mod', async () => {
    const tree = webappTree();
    tree['0.bundle.cue'] = [
      '@extern(embed)',
      '',
      'package bundle',
      '',
      'import corev1 "k8s.io/api/core/v1"',
      '',
      'cm: corev1.#ConfigMap & {metadata: name: "x", data: conf: _conf}',
      '_conf: _ @embed(file=templates/files/app.conf, type=text)',
      '',
    ].join('\n');
    const res = await engine.evaluate({ files: tree, entries: ['0.bundle.cue'], exports: [{ path: 'cm.kind' }, { path: 'cm.data.conf' }] });
    expect(res.exports[0].json).toBe('"ConfigMap"');
    expect(JSON.parse(res.exports[1].json!)).toContain('listen = 0.0.0.0');
  });

  it('rejects absolute paths in the tree', async () => {
    const err = await failure({ files: { '/etc/x.cue': 'x: 1' } });
    expect(err).toBeInstanceOf(CueInputError);
  });
});
