import { CueEngine, type CueDiagnostic } from '@flotilla/cue';
import { withValuesOrigins } from './values-origins';

describe('withValuesOrigins', () => {
  let cue: CueEngine;
  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 1 });
  });
  afterAll(() => cue.close());

  const merge = {
    base: { path: 'values.cue', content: 'values: {\n\tports: [{name: "http", port: 80}]\n\tlevel: "info"\n}\n' },
    overlays: [
      { path: 'a.cue', content: 'values: level: "debug"\n' },
      { path: 'b.json', content: '{\n  "values": {\n    "ports": [\n      {"port": 8080}\n    ]\n  }\n}\n' },
    ],
  };
  // the generated file as a build writes it
  const generated = { path: 'values.cue', content: 'package main\nvalues: {\n\tports: [{\n\t\tport: 8080\n\t\tname: "http"\n\t}]\n\tlevel: "debug"\n}' };
  const diag = (line: number, column: number): CueDiagnostic => ({ message: 'x', kind: 'cue', file: 'timoni.cue', line: 1, column: 1, positions: [{ file: 'timoni.cue', line: 1, column: 1 }, { file: 'values.cue', line, column }] });

  it('moves positions to the last file that set the field, list elements included, and puts them first', async () => {
    const [port, name, level] = await withValuesOrigins(cue, [diag(4, 9), diag(5, 9), diag(7, 9)], generated, merge);
    expect(port).toMatchObject({ file: 'b.json', line: 4 });
    expect(port.positions).toEqual([expect.objectContaining({ file: 'b.json', line: 4 }), { file: 'timoni.cue', line: 1, column: 1 }]);
    expect(name).toMatchObject({ file: 'values.cue', line: 2 });
    expect(level).toMatchObject({ file: 'a.cue', line: 1 });
  });

  it('keeps CUE positions for fields set in generated files', async () => {
    const [level] = await withValuesOrigins(cue, [diag(7, 9)], generated, merge, { untraced: ['a.cue'] });
    expect(level).toMatchObject({ file: 'timoni.cue', line: 1 });
  });
});
