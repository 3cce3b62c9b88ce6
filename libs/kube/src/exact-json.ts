// Request and response bodies keep integers beyond 2^53 exact: a module may
// set an int64 field (a quota, a seed) that JSON.parse/stringify would round
// (9007199254740993 → …992), and a rounded value also reads as drift on the
// next dry run. Such integers are bigint in objects, as libs/cue's
// parseExactJson gives them; lossless-json reads and writes them.
import { isInteger, parse, stringify } from 'lossless-json';

// An unsafe integer has at least 16 digits; other text takes the native parser.
const LONG_DIGITS = /\d{16}/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function exactNumber(token: string): number | bigint {
  const n = Number(token);
  if (!isInteger(token) || Number.isSafeInteger(n)) return n;
  // Kubernetes objects hold int64; beyond it Go (Timoni, the API server)
  // reads a float64, which is what Number gives too.
  const big = BigInt(token);
  return big >= INT64_MIN && big <= INT64_MAX ? big : n;
}

export function parseExactJson(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  return parse(text, null, exactNumber);
}

export function stringifyExactJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof TypeError && /BigInt/i.test(err.message))) throw err;
    return stringify(value) as string;
  }
}
