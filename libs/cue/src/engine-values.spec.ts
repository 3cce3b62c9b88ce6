import { CueEngine } from './engine';
import { CueEvaluationError } from './errors';

// Timoni's values merge (TIMONI-FORMATS §2.3).
describe('CueEngine.mergeValues', () => {
  let engine: CueEngine;
  beforeAll(async () => {
    engine = await CueEngine.start({ poolSize: 1 });
  });
  afterAll(() => engine.close());

  const base = {
    path: 'values.cue',
    content: `@if(!debug)
package main

values: {
	image: {repository: "ghcr.io/x/app", tag: "1.0.0"}
	replicas: *1 | int
	ports: [{name: "http", port: 80}, {name: "metrics", port: 9090}]
	labels: team: "web"
	empty: []
}
`,
  };

  it('lays a struct overlay over the base: overlay scalars win, other fields stay', async () => {
    const res = await engine.mergeValues({
      base,
      overlays: [{ path: 'o.cue', content: 'values: {image: tag: "2.0.0", labels: tier: "front", replicas: 3}\n' }],
    });
    expect(JSON.parse(res.json!)).toEqual({
      image: { tag: '2.0.0', repository: 'ghcr.io/x/app' },
      labels: { tier: 'front', team: 'web' },
      replicas: 3,
      ports: [
        { name: 'http', port: 80 },
        { name: 'metrics', port: 9090 },
      ],
      empty: [],
    });
    expect(res.cue).toContain('tag:        "2.0.0"');
  });

  it('replaces a base list by a shorter overlay list, merging element-wise', async () => {
    const res = await engine.mergeValues({ base, overlays: [{ path: 'o.json', content: '{"values": {"ports": [{"port": 8080}]}}' }] });
    expect(JSON.parse(res.json!).ports).toEqual([{ port: 8080, name: 'http' }]);
  });

  it('applies overlays in order, YAML included', async () => {
    const res = await engine.mergeValues({
      base,
      overlays: [
        { path: 'a.yaml', content: 'values:\n  replicas: 2\n' },
        { path: 'b.cue', content: 'values: replicas: 4\n' },
      ],
    });
    expect(JSON.parse(res.json!).replicas).toBe(4);
  });

  it('fails with incompatible list lengths when the overlay list is longer than the base list', async () => {
    const err = await engine
      .mergeValues({ base, overlays: [{ path: 'bad.cue', content: 'values: empty: ["x"]\n' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CueEvaluationError);
    expect((err as CueEvaluationError).diagnostics[0].message).toContain('incompatible list lengths');
  });

  it('returns CUE text that compiles back into a values file, keeping open values', async () => {
    const res = await engine.mergeValues({ base, overlays: [] });
    expect(res.cue).toContain('replicas: *1 | int');
    const back = await engine.evaluate({ files: { 'values.cue': `package main\nvalues: ${res.cue}\n` }, exports: [{ path: 'values.replicas' }] });
    expect(back.exports[0].json).toBe('1');
  });

  it('renders the merge as Timoni does (%v of the value): evaluated, hidden fields left out, and stores it concrete', async () => {
    const res = await engine.mergeValues({
      base: { path: 'values.cue', content: 'values: {\n\t_mcpu: 100\n\tcpu: "\\(_mcpu)m"\n\treplicas: *1 | int\n\tlabels: team: "web"\n}\n' },
      overlays: [{ path: 'o.cue', content: 'values: {labels: tier: "front", replicas: 3}\n' }],
    });
    // byte for byte what Timoni's merge prints for these two files
    expect(res.cue).toBe('{\n\tlabels: {\n\t\ttier: "front"\n\t\tteam: "web"\n\t}\n\treplicas: 3\n\tcpu:      "100m"\n}');
    expect(res.stored).toBe(res.cue);
    expect(res.stored).not.toContain('_mcpu');
  });

  it('names the file whose values field is missing', async () => {
    const err = await engine.mergeValues({ base, overlays: [{ path: 'none.cue', content: 'other: 1\n' }] }).catch((e: unknown) => e);
    expect((err as CueEvaluationError).diagnostics[0]).toMatchObject({ message: 'none.cue has no top-level "values" field', file: 'none.cue' });
  });
});
