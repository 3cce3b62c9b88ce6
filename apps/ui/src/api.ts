// The page reads and writes through the same REST API as the CLI, with the
// signed-in token as a bearer header; it never puts the token in a URL.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A request gives up after this long: the page says so rather than spinning. */
const REQUEST_DEADLINE_MS = 15_000;

/** The headers of a request with `token`; none for '' (an anonymous reader, where the hub allows one). */
export function authHeaders(token: string): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** `body`, when given, is sent as JSON. */
export async function apiCall<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: { ...authHeaders(token), accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
  });
  const text = await res.text();
  const answer = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) {
    const message = (answer as { message?: string } | undefined)?.message ?? res.statusText;
    throw new ApiError(res.status, message);
  }
  return answer as T;
}

export const apiGet = <T>(token: string, path: string) => apiCall<T>(token, 'GET', path);

/** After single sign-on: the hub hands over the access token once, from an HttpOnly cookie only it can read. */
export async function collectSignIn(): Promise<string> {
  return (await apiCall<{ token: string }>('', 'POST', '/auth/oidc/session')).token;
}

/** Path segments and query values are always encoded: names come from the API, filters from the user. */
export function path(strings: TemplateStringsArray, ...values: string[]): string {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(values[i]) : ''), '');
}

export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
