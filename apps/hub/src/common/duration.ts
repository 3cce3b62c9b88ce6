const UNITS: Record<string, number> = { h: 3600, m: 60, s: 1 };
/** hours, minutes and seconds, each part ending in its unit, so matching is linear: the grammar parseDuration reads */
export const DURATION = /^(\d+[hms])+$/;

/** Parses Go-style durations made of hours, minutes and seconds (`10m`, `1h30m`, `45s`) into seconds. */
export function parseDuration(text: string): number | undefined {
  if (!DURATION.test(text)) return undefined;
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)([hms])/gy)) total += Number(n) * UNITS[unit];
  return total;
}

/** The shortest h/m/s spelling of a number of seconds: 600 → `10m`, 5400 → `1h30m`. */
export function formatDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  let rest = seconds;
  let out = '';
  for (const [unit, size] of Object.entries(UNITS)) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out;
}

const MS_UNITS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** Like parseDuration, with milliseconds allowed (`250ms`, `1s500ms`), into milliseconds. */
export function parseDurationMs(text: string): number | undefined {
  if (!/^(\d+(ms|h|m|s))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)(ms|h|m|s)/gy)) total += Number(n) * MS_UNITS[unit];
  return total;
}
