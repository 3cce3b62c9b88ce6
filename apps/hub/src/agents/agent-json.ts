export const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An agent's JSON object, refused (by `refuse`'s error) when over `limitBytes`, not JSON, or not an object. */
export function parseAgentObject(json: string, limitBytes: number, refuse: (why: string) => Error): Record<string, unknown> {
  if (Buffer.byteLength(json) > limitBytes) throw refuse(`larger than ${limitBytes} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw refuse('not JSON');
  }
  if (!isJsonObject(value)) throw refuse('not an object');
  return value;
}
