import { join } from 'node:path';
import { readFileTree } from './file-tree';
import { toGoFile } from './files';
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
});
