// The hub's REST API with a total deadline per call (headers and body), and
// its errors turned into messages that name the object and say what to do.
// The token goes only into the Authorization header and is scrubbed from
// anything printed.
import { CliError, messageOf } from '../errors';
import type { Connection } from '../config/context';

export const DEFAULT_TIMEOUT_MS = 30_000;
/** A single sign-on token this close to its expiry is renewed before it is sent. */
const RENEW_MARGIN_S = 30;

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Said instead of the hub's message on 404, e.g. `cluster "x" not found`. */
  notFound?: string;
  /** What to do after a 404. */
  notFoundHint?: string;
  /** The body as the hub sent it (e.g. YAML), not parsed as JSON. */
  raw?: boolean;
}

export interface HubResponse<T> {
  status: number;
  body: T;
}

interface ApiError {
  message?: string | string[];
  problems?: string[];
  requestId?: string;
}

export class HubClient {
  constructor(
    readonly target: Connection,
    private readonly timeoutMs: number = DEFAULT_TIMEOUT_MS,
  ) {}

  async get<T>(path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.request<T>('GET', path, options)).body;
  }

  /** The object at `path`, or undefined when the hub has none (create-or-update commands ask this first). */
  async find<T>(path: string): Promise<T | undefined> {
    return this.get<T>(path).catch((err: unknown) => {
      if (err instanceof CliError && /not found/i.test(err.message)) return undefined;
      throw err;
    });
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<HubResponse<T>> {
    const oidc = this.target.oidc;
    if (oidc && oidc.expiresAt - RENEW_MARGIN_S <= Date.now() / 1000) {
      const renewed = await oidc.renew();
      this.target.token = renewed.accessToken;
      oidc.expiresAt = renewed.expiresAt;
    }
    const url = new URL(`${this.target.server}/api/v1${path}`);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    const signal = AbortSignal.timeout(this.timeoutMs);
    let text: string;
    let status: number;
    try {
      const res = await fetch(url, {
        method,
        signal,
        headers: { authorization: `Bearer ${this.target.token}`, accept: options.raw ? 'application/yaml, application/json;q=0.5' : 'application/json', ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
      });
      status = res.status;
      text = await res.text(); // under the same signal: the deadline covers the body too
    } catch (err) {
      if (signal.aborted) throw new CliError(`the hub at ${this.target.server} did not answer ${method} ${url.pathname} within ${this.timeoutMs / 1000}s`, 'check that the hub is up, or raise --request-timeout');
      const cause = (err as { cause?: unknown }).cause;
      throw new CliError(`cannot reach the hub at ${this.target.server}: ${this.scrub(messageOf(cause ?? err))}`, 'check the server URL (`flotilla context current`) and that the hub is running');
    }
    const body = parseJson(text);
    if (status >= 200 && status < 300) return { status, body: (options.raw ? text : body) as T };
    throw this.failure(status, body as ApiError | undefined, text, options);
  }

  /** Every item of an offset-paged list. */
  async all<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T[]> {
    const items: T[] = [];
    for (let offset = 0; ; ) {
      const page = await this.get<{ items: T[]; total: number }>(path, { query: { ...query, limit: 500, offset } });
      items.push(...page.items);
      offset += page.items.length;
      if (page.items.length === 0 || offset >= page.total) return items;
    }
  }

  /** Up to `max` items of a history, newest first, following the API's `continue` tokens. */
  async history<T>(path: string, max: number, query: Record<string, string | undefined> = {}): Promise<T[]> {
    const items: T[] = [];
    let cont: string | undefined;
    do {
      const page = await this.get<{ items: T[]; continue: string | null }>(path, { query: { ...query, limit: Math.min(500, max - items.length), continue: cont } });
      items.push(...page.items);
      cont = page.continue ?? undefined;
    } while (cont && items.length < max);
    return items;
  }

  private failure(status: number, body: ApiError | undefined, text: string, options: RequestOptions): CliError {
    const hubMessage = this.scrub(
      [Array.isArray(body?.message) ? body.message.join('; ') : body?.message, ...(body?.problems ?? []).map((p) => `\n  - ${p}`)]
        .filter(Boolean)
        .join('') || text.slice(0, 300) || `HTTP ${status}`,
    );
    const ref = body?.requestId ? ` (request ${body.requestId})` : '';
    switch (status) {
      case 401:
        return new CliError(
          `the hub at ${this.target.server} refused the token of context "${this.target.name}"${ref}`,
          this.target.oidc ? `sign in again: flotilla login --oidc --hub ${this.target.server}` : 'run `flotilla login --server URL --token TOKEN` with a valid token',
        );
      case 403:
        // a tenant's rule (named in the message) is not a matter of a higher role
        return new CliError(
          `not allowed: ${hubMessage}${ref}`,
          hubMessage.includes('(rule: ') ? "outside what your tenant allows: ask an admin to change the tenant's rules or your role" : 'this needs a token with a higher role (operator writes, admin manages tokens)',
        );
      case 404:
        return new CliError(options.notFound ?? hubMessage, options.notFoundHint);
      case 400:
        return new CliError(`the hub refused the request: ${hubMessage}`, 'fix the values named above');
      case 409:
        return new CliError(hubMessage + ref);
      default:
        return new CliError(`the hub answered HTTP ${status}: ${hubMessage}${ref}`, status >= 500 ? 'try again; if it persists, look at the hub log for the request id' : undefined);
    }
  }

  private scrub(s: string): string {
    return this.target.token ? s.split(this.target.token).join('***') : s;
  }
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
