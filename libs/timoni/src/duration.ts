// Go's time.ParseDuration syntax (`5m`, `1h30m`, `1.5s`, `300ms`), which the
// RFC's `timeout` uses. Returns milliseconds, or undefined when malformed.
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

export function parseDuration(text: string): number | undefined {
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return undefined;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const at = PART.lastIndex;
    const m = PART.exec(s);
    if (!m || m.index !== at) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]];
  }
  return sign * total;
}
