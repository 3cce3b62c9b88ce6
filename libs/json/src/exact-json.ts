// CUE integers have arbitrary precision, JavaScript numbers do not:
// JSON.parse turns 9007199254740993 into …992 and the int64 minimum into
// -9223372036854776000, and a rounded value sent to the API server reads as
// drift on the next dry run. JSON exported by CUE and Kubernetes bodies are
// read and written here instead: integers outside Number's safe range but
// within int64 become bigint, everything else is exactly what JSON.parse
// gives (so beyond int64 a float64, as in Go). lossless-json does the parsing
// and the writing back.
import { isInteger, parse, stringify } from 'lossless-json';

// An unsafe integer has at least 16 digits; text without such a run takes
// the native parser, which is several times faster.
const LONG_DIGITS = /\d{16}/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A JSON number token as a number, or a bigint when an int64 would lose digits. */
export function exactNumber(token: string): number | bigint {
  const n = Number(token);
  if (!isInteger(token) || Number.isSafeInteger(n)) return n;
  // Kubernetes objects hold int64; beyond it Go (Timoni, the API server)
  // reads a float64, which is what Number gives too.
  const big = BigInt(token);
  return big >= INT64_MIN && big <= INT64_MAX ? big : n;
}

/** JSON.parse, with integers beyond 2^53 kept exact as bigint. */
export function parseExactJson(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  return parse(text, null, exactNumber);
}

/** JSON.stringify (no indent), writing bigint values as plain JSON integers. */
export function stringifyExactJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof TypeError && /BigInt/i.test(err.message))) throw err;
    return stringify(value) as string;
  }
}
