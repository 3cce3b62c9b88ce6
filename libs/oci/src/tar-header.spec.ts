import { join } from 'node:path';
import { readdir, readFile } from 'node:fs/promises';
import { craftTarball, streamOf, tempDir } from '../testdata/helpers';
import { BLOCK, encodeHeader, padding } from './tar-header';
import { extractLayers } from './tarball-extract';

describe('encodeHeader', () => {
  it("writes Go's USTAR fields: octal widths, zero times and ids, checksum with trailing space", () => {
    const h = encodeHeader({ name: 'f.txt', type: 'file', mode: 0o100644, size: 2 });
    expect(h.length).toBe(BLOCK);
    expect(h.toString('latin1', 100, 108)).toBe('0000644\0');
    expect(h.toString('latin1', 108, 124)).toBe('0000000\x000000000\0');
    expect(h.toString('latin1', 124, 136)).toBe('00000000002\0');
    expect(h.toString('latin1', 136, 148)).toBe('00000000000\0');
    expect(h.toString('latin1', 156, 157)).toBe('0');
    expect(h.toString('latin1', 257, 265)).toBe('ustar\x0000');
    expect(h.toString('latin1', 265, 329).replace(/\0/g, '')).toBe('');
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
    expect(h.toString('latin1', 148, 156)).toBe(`${sum.toString(8).padStart(6, '0')}\0 `);
  });

  it('splits names up to 256 bytes into prefix and name, and uses a PAX path beyond', async () => {
    const mid = `${'d'.repeat(150)}/${'f'.repeat(90)}`;
    expect(encodeHeader({ name: mid, type: 'file', mode: 0o644 }).length).toBe(BLOCK);
    const long = `${'a'.repeat(120)}/${'b'.repeat(120)}/${'c'.repeat(120)}.cue`;
    expect(encodeHeader({ name: long, type: 'file', mode: 0o644 }).length).toBe(BLOCK * 3);
    // Both read back by a real tar parser under their full names.
    const dir = join(await tempDir(), 'out');
    await extractLayers([streamOf(craftTarball([{ name: mid, content: 'm' }, { name: long, content: 'l' }]))], dir);
    expect(await readFile(join(dir, long), 'utf8')).toBe('l');
    expect(await readFile(join(dir, mid), 'utf8')).toBe('m');
    expect((await readdir(dir)).sort()).toEqual(['a'.repeat(120), 'd'.repeat(150)]);
  });

  it('pads data to whole blocks', () => {
    expect(padding(0).length).toBe(0);
    expect(padding(1).length).toBe(511);
    expect(padding(512).length).toBe(0);
  });
});
