import { CueEngine } from './engine';
import { CueEvaluationError } from './errors';

describe('CueEngine basics', () => {
  let engine: CueEngine;
  beforeAll(async () => {
    engine = await CueEngine.start({ poolSize: 1 });
  });
  afterAll(() => engine.close());

  it('evaluates a package and keeps field order', async () => {
    const res = await engine.evaluate({
      files: { 'a.cue': 'package main\nout: {z: 1, a: 2, "1": 3}\n' },
      exports: [{ path: 'out', fields: true }],
    });
    expect(res.exports[0].json).toBe('{"z":1,"a":2,"1":3}');
    expect(res.exports[0].fields!.map((f) => f.label)).toEqual(['z', 'a', '1']);
  });

  it('reports a conflict with file and line', async () => {
    const err = await engine
      .evaluate({ files: { 'a.cue': 'package main\nx: 1\nx: 2\n' }, exports: [{ path: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CueEvaluationError);
    expect((err as CueEvaluationError).diagnostics[0]).toMatchObject({ file: 'a.cue', line: 2, message: 'x: conflicting values 2 and 1' });
  });
});
