// Memory sizes as operators write them for Kubernetes: bytes, or a whole
// number with Ki, Mi or Gi. Parsed by hand (no regular expression on input).

const UNITS: Record<string, number> = { '': 1, Ki: 1024, Mi: 1048576, Gi: 1073741824 };

/** Bytes of `text` ("384Mi", "1Gi", "402653184"), or undefined when it is not such a size. */
export function parseMemorySize(text: string): number | undefined {
  const t = text.trim();
  let end = 0;
  while (end < t.length && t[end] >= '0' && t[end] <= '9') end++;
  if (end === 0 || end > 15) return undefined;
  const unit = UNITS[t.slice(end)];
  if (unit === undefined || !Object.hasOwn(UNITS, t.slice(end))) return undefined;
  const bytes = Number(t.slice(0, end)) * unit;
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}
