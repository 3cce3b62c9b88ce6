// One REST call to a hub as admin, as the suites that run hubs as processes or
// containers make it: JSON in, the status, the parsed body and its text out.

export interface ApiResponse {
  status: number;
  // Bodies are explored field by field in assertions; a type per route would only restate the hub's DTOs.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

/** `timeoutMs`, when given, bounds the whole call: a hung hub then fails the test naming the route, not the suite's timeout. */
export async function adminCall(baseUrl: string, token: string, method: string, path: string, body?: unknown, timeoutMs?: number): Promise<ApiResponse> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
    signal: timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}
