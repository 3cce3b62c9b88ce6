// HTTP to one or more registries: scheme choice (HTTPS unless loopback or
// insecure), user agent, authorization with one retry after a 401 challenge,
// and distribution error bodies turned into RegistryError. Every request runs
// under its RequestDeadline, whose signal also ends the caller's body read.
import { boundedText } from '@flotilla/egress';
import { parseChallenge } from './auth-challenge';
import { Authenticator } from './auth';
import { AuthError, InsecureRegistryError, RegistryError } from './errors';
import { isLoopbackRegistry } from './reference';
import type { RequestDeadline } from './request-deadline';
import { readLimited } from './response-read';
import type { CredentialSource } from './types';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
/** Error bodies are read for their message only. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Longest registry error message kept. */
const MAX_ERROR_MESSAGE = 200;

export interface TransportOptions {
  credentials: CredentialSource;
  /** Reach non-loopback registries over plain HTTP. Loopback hosts always use HTTP. */
  insecure: boolean;
  userAgent: string;
  /** Total deadline of a token request, headers and body. */
  responseTimeoutMs: number;
  /** Largest token endpoint response read. */
  maxTokenBytes: number;
  fetch: typeof fetch;
}

export interface SendOptions {
  method: string;
  /** A path under the registry (`/v2/...`) or an absolute URL (upload locations). */
  path: string;
  /** Repository scopes the request needs (bearer tokens are issued per scope). */
  scopes: readonly string[];
  headers?: Record<string, string>;
  /** Bodies are buffers so a request can be replayed after an auth challenge. */
  body?: Buffer | string;
  /** Statuses that are not errors; anything else throws RegistryError. */
  ok: readonly number[];
  /**
   * The request's total deadline (with the caller's signal). The caller reads
   * the body under it too and clears it when done.
   */
  deadline: RequestDeadline;
}

export class RegistryTransport {
  private readonly auths = new Map<string, Promise<Authenticator>>();

  constructor(private readonly opts: TransportOptions) {}

  /** The URL a request for `path` goes to. */
  url(registry: string, path: string): string {
    return path.startsWith('/') ? `${this.baseUrl(registry)}${path}` : path;
  }

  baseUrl(registry: string): string {
    if (isLoopbackRegistry(registry) || this.opts.insecure) return `http://${registry}`;
    return `https://${registry}`;
  }

  /** Token endpoint round trips so far for one registry (0 when none). */
  async tokenRequests(registry: string): Promise<number> {
    const auth = this.auths.get(registry);
    return auth ? (await auth).tokenRequests : 0;
  }

  async send(registry: string, req: SendOptions): Promise<Response> {
    const url = this.url(registry, req.path);
    req.deadline.check();
    if (url.startsWith('http://') && !this.opts.insecure && !isLoopbackRegistry(new URL(url).host)) {
      throw new InsecureRegistryError(registry);
    }
    const signal = req.deadline.signal;
    const auth = await this.authenticator(registry);
    let res = await this.once(url, req, await auth.header(req.scopes, signal));
    if (res.status === 401) {
      await res.body?.cancel();
      const challenge = parseChallenge(res.headers.get('www-authenticate') ?? '');
      if (!auth.learn(challenge)) {
        throw new AuthError(registry, `${req.method} ${url} answered 401 without a usable challenge`);
      }
      auth.forget(req.scopes);
      res = await this.once(url, req, await auth.header(req.scopes, signal));
      if (res.status === 401) {
        await res.body?.cancel();
        throw new AuthError(registry, `${req.method} ${url} refused the credentials (401)`);
      }
    }
    if (!req.ok.includes(res.status)) throw req.deadline.wrap(await registryError(req.method, url, res));
    return res;
  }

  /**
   * One request, following redirects by hand (blob GETs often go to object
   * storage): each hop must pass the plain-HTTP policy, and credentials are
   * sent to the registry's own origin only.
   */
  private async once(url: string, req: SendOptions, authorization: string | undefined): Promise<Response> {
    const origin = new URL(url).origin;
    let target = url;
    let method = req.method;
    let body = req.body;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const headers: Record<string, string> = { 'user-agent': this.opts.userAgent, ...req.headers };
      if (authorization && new URL(target).origin === origin) headers.authorization = authorization;
      const res = await this.fetchOnce(target, method, headers, body, req.deadline);
      const location = res.headers.get('location');
      if (!REDIRECTS.has(res.status) || !location) return res;
      await res.body?.cancel();
      const next = new URL(location, target);
      if (next.protocol !== 'https:' && !this.opts.insecure && !isLoopbackRegistry(next.host)) throw new InsecureRegistryError(next.host);
      if (res.status === 303 || (method === 'POST' && (res.status === 301 || res.status === 302))) {
        method = 'GET';
        body = undefined;
      }
      target = next.toString();
    }
    throw new RegistryError(req.method, url, 0, undefined, `more than ${MAX_REDIRECTS} redirects`);
  }

  private async fetchOnce(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: Buffer | string | undefined,
    deadline: RequestDeadline,
  ): Promise<Response> {
    try {
      return await this.opts.fetch(url, { method, headers, body, redirect: 'manual', signal: deadline.signal });
    } catch (cause) {
      deadline.check();
      const why = innermostMessage(cause);
      throw new RegistryError(method, url, 0, undefined, `request failed before a response${why ? `: ${why}` : ''}`, { cause });
    }
  }

  private authenticator(registry: string): Promise<Authenticator> {
    let auth = this.auths.get(registry);
    if (!auth) {
      const source = this.opts.credentials;
      auth = Promise.resolve(typeof source === 'function' ? source(registry) : source).then(
        (credentials) =>
          new Authenticator({
            registry,
            credentials,
            userAgent: this.opts.userAgent,
            fetch: this.opts.fetch,
            timeoutMs: this.opts.responseTimeoutMs,
            maxBytes: this.opts.maxTokenBytes,
            insecure: this.opts.insecure,
          }),
      );
      // A failed credential lookup is retried on the next request rather than cached.
      auth.catch(() => this.auths.delete(registry));
      this.auths.set(registry, auth);
    }
    return auth;
  }
}

/**
 * The error of a non-2xx answer: the first distribution error's `code` and `message`,
 * bounded. Any other body is not shown: a registry host may name any server.
 */
async function registryError(method: string, url: string, res: Response): Promise<RegistryError> {
  const text = method === 'HEAD' ? '' : await readLimited(res, MAX_ERROR_BODY_BYTES, `${method} ${url} error body`).then((b) => b.toString('utf8'), () => '');
  let code: string | undefined;
  let detail = text ? 'the answer is not a registry error (body not shown)' : '';
  try {
    const body = JSON.parse(text) as { errors?: { code?: unknown; message?: unknown }[] };
    const first = Array.isArray(body?.errors) ? body.errors[0] : undefined;
    if (first && typeof first === 'object') {
      code = typeof first.code === 'string' && isErrorCode(first.code) ? first.code : undefined;
      detail = typeof first.message === 'string' ? boundedText(first.message, MAX_ERROR_MESSAGE) : '';
    }
  } catch {
    // not a distribution error body: described above, never echoed
  }
  return new RegistryError(method, url, res.status, code, detail);
}

/**
 * The innermost message of a network error (fetch wraps the socket's, which says
 * what happened: refused, reset, the egress policy's refusal), bounded.
 */
function innermostMessage(err: unknown): string | undefined {
  let c = err as { message?: unknown; cause?: unknown } | undefined;
  let best: string | undefined;
  for (let depth = 0; c && typeof c === 'object' && depth < 5; depth++) {
    if (typeof c.message === 'string' && c.message) best = c.message;
    c = c.cause as typeof c;
  }
  return best === undefined || best === 'fetch failed' ? undefined : boundedText(best, 200);
}

/** Distribution error codes are short upper-case words (`MANIFEST_UNKNOWN`). */
function isErrorCode(code: string): boolean {
  if (code.length === 0 || code.length > 64) return false;
  for (const ch of code) if (!((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch === '_')) return false;
  return true;
}
