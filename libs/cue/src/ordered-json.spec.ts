import { parseOrderedJson } from './ordered-json';

describe('parseOrderedJson', () => {
  it('keeps object keys in written order, integer-like keys included', () => {
    const v = parseOrderedJson('{"b": 1, "10": 2, "a": {"2": true, "1": null}}') as Map<string, unknown>;
    expect([...v.keys()]).toEqual(['b', '10', 'a']);
    expect([...(v.get('a') as Map<string, unknown>).entries()]).toEqual([
      ['2', true],
      ['1', null],
    ]);
  });

  it('parses scalars, arrays and escapes like JSON.parse', () => {
    const text = '[1, -2.5e3, "x\\"y\\u00e9", [], {}, false]';
    const v = parseOrderedJson(text) as unknown[];
    expect(v.slice(0, 4)).toEqual((JSON.parse(text) as unknown[]).slice(0, 4));
    expect(v[4]).toEqual(new Map());
    expect(v[5]).toBe(false);
  });

  it('keeps integers beyond 2^53 exact as bigint', () => {
    expect(parseOrderedJson('[9007199254740993,-9223372036854775808,18446744073709551615,9007199254740991,1.5]')).toEqual([9007199254740993n, -9223372036854775808n, 18446744073709551615n, 9007199254740991, 1.5]);
  });

  it('rejects malformed input with the offset', () => {
    expect(() => parseOrderedJson('{"a": 1,}')).toThrow(/offset 8/);
    expect(() => parseOrderedJson('[1] x')).toThrow(/trailing data/);
  });
});
