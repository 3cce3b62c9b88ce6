import { LineSplitter } from './line-splitter';

const text = (lines: Buffer[]) => lines.map((l) => l.toString('utf8'));

describe('LineSplitter', () => {
  it('joins lines split across chunks and keeps a last line without newline for end()', () => {
    const s = new LineSplitter(100, () => new Error('too large'));
    expect(text(s.push(Buffer.from('{"a":1}\n{"b"')))).toEqual(['{"a":1}']);
    expect(text(s.push(Buffer.from(':2}\r\n\n{"c":')))).toEqual(['{"b":2}']);
    expect(text(s.push(Buffer.from('3}')))).toEqual([]);
    expect(s.end()?.toString()).toBe('{"c":3}');
    expect(s.end()).toBeUndefined();
  });

  it('keeps a multi-byte character split between chunks intact', () => {
    const s = new LineSplitter(100, () => new Error('too large'));
    const bytes = Buffer.from('"é"\n');
    expect(s.push(bytes.subarray(0, 2))).toEqual([]);
    expect(text(s.push(bytes.subarray(2)))).toEqual(['"é"']);
  });

  it('refuses a line once it passes the limit, before its newline arrives', () => {
    const s = new LineSplitter(8, () => new Error('line too large'));
    expect(text(s.push(Buffer.from('12345678\nabcd')))).toEqual(['12345678']);
    expect(() => s.push(Buffer.from('efghi'))).toThrow('line too large');
  });

  it('rejects a limit that is not positive', () => {
    expect(() => new LineSplitter(0, () => new Error('x'))).toThrow(RangeError);
  });
});
