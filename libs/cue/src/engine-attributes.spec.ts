import { CueEngine } from './engine';
import { CueEvaluationError } from './errors';

// Runtime attribute injection (TIMONI-FORMATS §3.3) and `for` expressions (§4.3).
describe('CueEngine attributes and expressions', () => {
  let engine: CueEngine;
  beforeAll(async () => {
    engine = await CueEngine.start({ poolSize: 1 });
  });
  afterAll(() => engine.close());

  const bundle = `bundle: {
	apiVersion: "v1alpha1"
	name:       "podinfo"
	instances: podinfo: {
		module: url: "oci://ghcr.io/stefanprodan/modules/podinfo"
		namespace: "podinfo"
		values: {
			host:      *"example.com" | string @timoni(runtime:string:HOST) @timoni(runtime:string:IGNORED)
			replicas?: int                     @timoni(runtime:number:REPLICAS)
			ha!:       bool                    @timoni(runtime:bool:HA)
			note:      *"n" | string           @other(x)
		}
	}
}
_cluster: string @timoni(runtime:string:TIMONI_CLUSTER_NAME)
`;

  it('lists fields carrying an attribute with their paths, markers and first body', async () => {
    const fields = await engine.listAttributes({ files: { 'bundle.cue': bundle, 'skip.json': '{}' }, name: 'timoni' });
    expect(fields.map((f) => [f.path, f.constraint ?? '', f.body, f.line])).toEqual([
      ['bundle.instances.podinfo.values.host', '', 'runtime:string:HOST', 8],
      ['bundle.instances.podinfo.values.replicas', '?', 'runtime:number:REPLICAS', 9],
      ['bundle.instances.podinfo.values.ha', '!', 'runtime:bool:HA', 10],
      ['_cluster', '', 'runtime:string:TIMONI_CLUSTER_NAME', 15],
    ]);
  });

  it('replaces values keeping labels and markers, then the bundle evaluates', async () => {
    const fields = await engine.listAttributes({ files: { 'bundle.cue': bundle }, name: 'timoni' });
    const by = (name: string) => fields.find((f) => f.body.endsWith(`:${name}`))!.fieldOffset;
    const text = await engine.rewriteFields({
      path: 'bundle.cue',
      content: bundle,
      replacements: [
        { fieldOffset: by('HOST'), value: { kind: 'string', text: 'line one\nline "two"' } },
        { fieldOffset: by('REPLICAS'), value: { kind: 'number', text: '0x10' } },
        { fieldOffset: by('HA'), value: { kind: 'bool', text: 'true' } },
        { fieldOffset: by('TIMONI_CLUSTER_NAME'), value: { kind: 'string', text: 'eu-1' } },
      ],
    });
    expect(text).toContain('replicas?: 0x10');
    expect(text).toContain('ha!:');
    expect(text).toContain('"""');
    // Markers stay: replicas? remains optional (not exported) and ha! still
    // needs a regular field, here from a second file of the package.
    const res = await engine.evaluate({
      files: { 'bundle.cue': text, 'ha.cue': 'bundle: instances: podinfo: values: ha: true\n' },
      entries: ['bundle.cue', 'ha.cue'],
      exports: [{ path: 'bundle.instances.podinfo.values' }, { path: '_cluster' }, { path: 'bundle.instances.podinfo.values.replicas?' }],
    });
    expect(JSON.parse(res.exports[0].json!)).toEqual({ host: 'line one\nline "two"', ha: true, note: 'n' });
    expect(res.exports[1].json).toBe('"eu-1"');
    expect(res.exports[2].json).toBe('16');
  });

  it('rejects a value that is not a number literal, naming the field', async () => {
    const fields = await engine.listAttributes({ files: { 'bundle.cue': bundle }, name: 'timoni' });
    const replicas = fields.find((f) => f.label === 'replicas')!;
    const err = await engine
      .rewriteFields({ path: 'bundle.cue', content: bundle, replacements: [{ fieldOffset: replicas.fieldOffset, value: { kind: 'number', text: '3 + 1' } }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CueEvaluationError);
    expect((err as CueEvaluationError).diagnostics[0]).toMatchObject({ file: 'bundle.cue', line: 9 });
    expect((err as Error).message).toContain('"3 + 1" is not a CUE number literal');
  });

  it('accepts CUE number forms with separators and SI multipliers', async () => {
    const src = 'x: int @a()\ny: number @a()\n';
    const [x, y] = await engine.listAttributes({ files: { 'a.cue': src }, name: 'a' });
    const text = await engine.rewriteFields({
      path: 'a.cue',
      content: src,
      replacements: [
        { fieldOffset: x.fieldOffset, value: { kind: 'number', text: '2Mi' } },
        { fieldOffset: y.fieldOffset, value: { kind: 'number', text: '-1_000.5' } },
      ],
    });
    const res = await engine.evaluate({ files: { 'a.cue': text }, entries: ['a.cue'], exports: [{ path: '' }] });
    expect(JSON.parse(res.exports[0].json!)).toEqual({ x: 2097152, y: -1000.5 });
  });

  it('evaluates runtime expressions with obj bound', async () => {
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      data: { 'ca.crt': 'PEM', replicas: '3' },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
      spec: { size: 42, on: true },
    };
    const s = await engine.evalExpression({ expression: 'obj.data."ca.crt"', bindings: { obj } });
    expect(s).toMatchObject({ kind: 'string', string: 'PEM' });
    const c = await engine.evalExpression({ expression: '[for c in obj.status.conditions if c.type == "Ready" {c.status}][0]', bindings: { obj } });
    expect(c.string).toBe('True');
    const n = await engine.evalExpression({ expression: 'obj.spec.size', bindings: { obj } });
    expect(n).toMatchObject({ kind: 'int', cue: '42', json: '42' });
    const b = await engine.evalExpression({ expression: 'strings.ToUpper(obj.kind)', bindings: { obj } });
    expect(b.string).toBe('CONFIGMAP');
  });

  it('fails on a missing field in an expression', async () => {
    const err = await engine.evalExpression({ expression: 'obj.data.missing', bindings: { obj: { data: {} } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CueEvaluationError);
    expect((err as Error).message).toContain('missing');
  });
});
