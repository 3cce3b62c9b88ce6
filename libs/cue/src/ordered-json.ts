/**
 * JSON with object key order kept exactly as written: objects become Maps.
 * JSON.parse reorders integer-like keys ("10" before "a"), which would
 * break CUE field order for labels such as apply step names. Integers
 * beyond 2^53 are bigint, whatever their size.
 */
export type OrderedValue = null | boolean | number | bigint | string | OrderedValue[] | Map<string, OrderedValue>;

const STRING = /"(?:[^"\\]|\\.)*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const SPACE = /[ \t\n\r]*/y;

export function parseOrderedJson(text: string): OrderedValue {
  let pos = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`invalid JSON at offset ${pos}: ${what}`);
  };
  const skip = () => {
    SPACE.lastIndex = pos;
    SPACE.exec(text);
    pos = SPACE.lastIndex;
  };
  const match = (re: RegExp): string | undefined => {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) return undefined;
    pos = re.lastIndex;
    return m[0];
  };
  const value = (): OrderedValue => {
    skip();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const out = new Map<string, OrderedValue>();
      skip();
      if (text[pos] === '}') {
        pos++;
        return out;
      }
      for (;;) {
        skip();
        const key = match(STRING) ?? fail('expected a key');
        skip();
        if (text[pos++] !== ':') fail('expected ":"');
        out.set(JSON.parse(key) as string, value());
        skip();
        const sep = text[pos++];
        if (sep === '}') return out;
        if (sep !== ',') fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      pos++;
      const out: OrderedValue[] = [];
      skip();
      if (text[pos] === ']') {
        pos++;
        return out;
      }
      for (;;) {
        out.push(value());
        skip();
        const sep = text[pos++];
        if (sep === ']') return out;
        if (sep !== ',') fail('expected "," or "]"');
      }
    }
    if (c === '"') return JSON.parse(match(STRING) ?? fail('bad string')) as string;
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return v;
      }
    }
    const n = match(NUMBER);
    if (n === undefined) return fail('unexpected character');
    // These values go back into CUE, whose integers have no size limit.
    const num = Number(n);
    return /^-?\d+$/.test(n) && !Number.isSafeInteger(num) ? BigInt(n) : num;
  };
  const result = value();
  skip();
  if (pos !== text.length) fail('trailing data');
  return result;
}
