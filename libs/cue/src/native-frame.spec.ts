import { encodeRequestFrame } from './native-frame';

describe('encodeRequestFrame', () => {
  it('moves text files into the bytes after the JSON, with their offsets', () => {
    const frame = encodeRequestFrame(7, 'evaluate', {
      files: [
        { path: 'a.cue', text: 'a: "é"\n' },
        { path: 'b.bin', base64: '/wA=' },
        { path: 'c.cue', text: 'c: 1' },
      ],
      entries: ['a.cue'],
    });
    const blob = Buffer.concat(frame.blob);
    const json = JSON.parse(frame.json.toString('utf8')) as { files: Array<{ path: string; blob?: [number, number]; base64?: string }>; entries: string[] };
    expect(frame.header).toBe(`7 evaluate ${frame.json.length} ${blob.length}\n`);
    expect(json.entries).toEqual(['a.cue']);
    expect(json.files[1]).toEqual({ path: 'b.bin', base64: '/wA=' });
    const text = (i: number) => blob.subarray(json.files[i].blob![0], json.files[i].blob![0] + json.files[i].blob![1]).toString('utf8');
    expect([text(0), text(2)]).toEqual(['a: "é"\n', 'c: 1']);
  });

  it('sends files still as bytes raw, whatever they hold, without decoding them', () => {
    const bytes = Uint8Array.from([0x61, 0x3a, 0x20, 0xff, 0x00]);
    const frame = encodeRequestFrame(2, 'evaluate', { files: [{ path: 'x.bin', bytes }, { path: 'y.cue', text: 'y: 1' }] });
    const json = JSON.parse(frame.json.toString('utf8')) as { files: Array<{ path: string; blob: [number, number]; bytes?: unknown }> };
    const blob = Buffer.concat(frame.blob);
    expect(json.files.map((f) => f.path)).toEqual(['x.bin', 'y.cue']);
    expect(json.files[0].bytes).toBeUndefined();
    expect([...blob.subarray(json.files[0].blob[0], json.files[0].blob[0] + json.files[0].blob[1])]).toEqual([...bytes]);
    expect(blob.subarray(json.files[1].blob[0]).toString('utf8')).toBe('y: 1');
  });

  it('keeps the three-field header for requests without files', () => {
    const frame = encodeRequestFrame(1, 'mergeValues', { base: { path: 'values.cue', text: 'values: {}' } });
    expect(frame.header).toBe(`1 mergeValues ${frame.json.length}\n`);
    expect(frame.blob).toEqual([]);
  });
});
