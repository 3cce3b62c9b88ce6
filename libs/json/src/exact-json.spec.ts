import { parseExactJson, stringifyExactJson } from './exact-json';

describe('exact JSON', () => {
  const text = '{"big":9007199254740993,"min":-9223372036854775808,"max":18446744073709551615,"safe":9007199254740991,"f":1.5,"e":1e+300,"s":"12345678901234567890","l":[1,-2]}';

  it('keeps integers beyond 2^53 as bigint and all else as JSON.parse does', () => {
    expect(parseExactJson(text)).toEqual({
      big: 9007199254740993n,
      min: -9223372036854775808n,
      max: Number('18446744073709551615'), // beyond int64: a float64, as Go reads it
      safe: 9007199254740991,
      f: 1.5,
      e: 1e300,
      s: '12345678901234567890',
      l: [1, -2],
    });
    expect(parseExactJson('{"a":[1,{"b":"x"}],"c":null}')).toEqual(JSON.parse('{"a":[1,{"b":"x"}],"c":null}'));
  });

  it('writes the same text back', () => {
    expect(stringifyExactJson(parseExactJson(text))).toBe('{"big":9007199254740993,"min":-9223372036854775808,"max":18446744073709552000,"safe":9007199254740991,"f":1.5,"e":1e+300,"s":"12345678901234567890","l":[1,-2]}');
    const plain = { a: 1, u: undefined, n: null, s: 'x', d: [true] };
    expect(stringifyExactJson(plain)).toBe(JSON.stringify(plain));
    expect(stringifyExactJson({ ...plain, b: 2n ** 64n })).toBe(JSON.stringify(plain).replace(/}$/, ',"b":18446744073709551616}'));
  });

  it('keeps __proto__ an own key, as JSON.parse does', () => {
    const v = parseExactJson('{"__proto__":{"x":1},"n":12345678901234567890}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__', 'n']);
  });
});
