import { join } from 'node:path';
import { readFileTree } from './file-tree';
import { jsonFiles, toGoFile, toRawGoFiles } from './files';
import { TESTDATA } from './test-support';

describe('readFileTree and file encoding', () => {
  it('reads a module with slash-separated relative paths', () => {
    const tree = readFileTree(join(TESTDATA, 'webapp'));
    expect(Object.keys(tree)).toEqual(expect.arrayContaining(['cue.mod/module.cue', 'templates/files/app.conf', 'timoni.cue']));
  });

  it('sends UTF-8 as text and other bytes as base64', () => {
    expect(toGoFile('a.cue', new TextEncoder().encode('x: "é"'))).toEqual({ path: 'a.cue', text: 'x: "é"' });
    expect(toGoFile('b.bin', Uint8Array.from([0xff, 0x00]))).toEqual({ path: 'b.bin', base64: '/wA=' });
  });

  it('leaves bytes as read for the native frame and converts them only for a JSON transport', () => {
    const raw = toRawGoFiles({ 'a.cue': new TextEncoder().encode('x: "é"'), 'b.bin': Uint8Array.from([0xff, 0x00]), 'c.cue': 'c: 1' });
    expect(raw.map((f) => Object.keys(f).sort().join(','))).toEqual(['bytes,path', 'bytes,path', 'path,text']);
    expect(jsonFiles({ files: raw, name: 'n' })).toEqual({
      files: [{ path: 'a.cue', text: 'x: "é"' }, { path: 'b.bin', base64: '/wA=' }, { path: 'c.cue', text: 'c: 1' }],
      name: 'n',
    });
    const plain = { files: [{ path: 'c.cue', text: 'c: 1' }] };
    expect(jsonFiles(plain)).toBe(plain);
  });
});
