// A connection to one API server from explicit credentials: TLS, auth, impersonation,
// rate limiting, a total deadline per request and request counting. Never reads a
// kubeconfig (kubeconfig.ts and in-cluster.ts turn those into ClusterCredentials).
import type { Agent, Dispatcher } from 'undici';
import { createSecureContext, type SecureContext } from 'node:tls';
import { undici } from './undici-loader';
import { apiPathTemplate } from './api-path';
import { DEFAULT_BURST, DEFAULT_QPS } from './constants';
import { ConflictError, ConnectionConfigError, ResponseTooLargeError, ForbiddenError, KubeApiError, NotFoundError, RequestTimeoutError, StreamDecodeError, StreamIdleError, type ApiStatus } from './errors';
import { type EgressPolicy, egressConnector, isLoopbackHost } from '@flotilla/egress';
import { parseExactJson, stringifyExactJson } from '@flotilla/json';
import { apiStatusOf } from './api-status';
import { LineSplitter } from './line-splitter';
import { TokenBucket } from './rate-limiter';
import { TokenFile } from './token-file';

/**
 * Where an API server is and how to authenticate to it: the one credentials type of
 * Flotilla (the hub's stored clusters, a kubeconfig, the in-cluster service account).
 */
export interface ClusterCredentials {
  /** https://host:port (http:// only for tests against a local insecure server) */
  server: string;
  /** PEM of the CA that signed the serving certificate; system CAs when absent */
  caData?: string;
  /** bearer token */
  token?: string;
  /**
   * bearer token read from this file and re-read as it rotates (in-cluster service
   * accounts, local kubeconfigs); never accepted from the hub's API users
   */
  tokenFile?: string;
  /** PEM client certificate and key (both or neither) */
  clientCertData?: string;
  clientKeyData?: string;
  /** accept any serving certificate (test clusters only) */
  insecureSkipTLSVerify?: boolean;
}

/** Who to act as: the user and each of its groups go out as separate header lines. */
export interface Impersonation {
  user: string;
  groups?: string[];
}

/**
 * A Project's service account. No groups are sent: the API server gives an impersonated
 * service account its own groups, and impersonating groups would need a right
 * (`impersonate` on `groups`) that also reaches system:masters.
 */
export function serviceAccountImpersonation(namespace: string, name: string): Impersonation {
  return { user: `system:serviceaccount:${namespace}:${name}` };
}

/** One finished API request, for metrics. */
export interface RequestEvent {
  method: string;
  /** path without query */
  path: string;
  /** path with namespace and name replaced by placeholders (low-cardinality label) */
  pathTemplate: string;
  /** HTTP status; 0 when no response arrived */
  statusCode: number;
  durationMs: number;
}

export interface ConnectionOptions {
  /** sustained requests per second (Timoni: 100) */
  qps: number;
  /** requests allowed at once before pacing starts (Timoni: 300) */
  burst: number;
  /** total deadline of one request in milliseconds, headers and body (ApiRequest.timeoutMs overrides) */
  requestTimeoutMs: number;
  /** largest response body read; a larger one is refused while reading, never buffered whole */
  maxResponseBytes: number;
  userAgent: string;
  /** how long a token read from `tokenFile` is used before the file is read again */
  tokenRefreshMs: number;
  /**
   * how long an idle socket stays open for the next request (undici's default, 4 s, when
   * absent); keep it under the API server's idle timeout (90 s) and any proxy's before it
   */
  keepAliveMs?: number;
  /** clock for the token refresh (tests) */
  now?: () => number;
  /** called after every request (the hub exports counts as metrics); must not throw */
  onRequest?: (event: RequestEvent) => void;
  /**
   * Where connections may go, checked on the address each socket connects to (the hub's
   * egress policy); none: anywhere (the agent's own API server, the CLI's kubeconfig).
   */
  egress?: EgressPolicy;
}

export function defaultConnectionOptions(): ConnectionOptions {
  return { qps: DEFAULT_QPS, burst: DEFAULT_BURST, requestTimeoutMs: 30_000, maxResponseBytes: 64 * 1024 * 1024, userAgent: 'flotilla', tokenRefreshMs: 60_000 };
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** JSON-serialisable body */
  body?: unknown;
  /** defaults to application/json when there is a body */
  contentType?: string;
  /** names the object in errors, e.g. `Deployment/apps/web` */
  subject?: string;
  /** total deadline for this request (default: the connection's requestTimeoutMs) */
  timeoutMs?: number;
  /** a 404 answers undefined instead of throwing NotFoundError (an error's stack costs more than the request) */
  absentAsUndefined?: boolean;
}

/** A long-lived request (watch): no total deadline, but an idle one and a bound per line. */
export interface ApiStreamRequest extends Omit<ApiRequest, 'body' | 'contentType' | 'absentAsUndefined'> {
  method: 'GET';
  /** deadline for the response headers (default: the connection's requestTimeoutMs) */
  timeoutMs?: number;
  /** the stream ends with StreamIdleError after this long without a byte (default 60 s) */
  idleTimeoutMs?: number;
  /** longest line read (default 16 MiB); a longer one ends the stream with ResponseTooLargeError */
  maxLineBytes?: number;
}

export const DEFAULT_STREAM_IDLE_MS = 60_000;
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Transport shared by a connection and its impersonating views. */
interface Transport {
  agent: Agent;
  limiter: TokenBucket;
  base: URL;
  token?: string;
  tokenFile?: TokenFile;
}

/**
 * One TLS context for all of a connection's sockets: given only the PEMs, Node
 * parses them again for every socket it opens. PEMs it cannot read are passed
 * on as they are, so the first request fails with the TLS error as before.
 */
function tlsContext(c: ClusterCredentials): { secureContext: SecureContext } | { ca?: string; cert?: string; key?: string } {
  const pems = { ca: c.caData, cert: c.clientCertData, key: c.clientKeyData };
  try {
    return { secureContext: createSecureContext(pems) };
  } catch {
    return pems;
  }
}

export class ClusterConnection {
  private constructor(
    private readonly transport: Transport,
    readonly options: ConnectionOptions,
    readonly impersonation: Impersonation | undefined,
    readonly server: string,
    /** aborts every request of this view (e.g. the reconcile's deadline) */
    readonly signal?: AbortSignal,
  ) {}

  /** Validates the credentials and opens a connection pool (lazy: no request is made). */
  static create(credentials: ClusterCredentials, options: Partial<ConnectionOptions> = {}): ClusterConnection {
    const opts = { ...defaultConnectionOptions(), ...options };
    let base: URL;
    try {
      base = new URL(credentials.server);
    } catch (err) {
      throw new ConnectionConfigError(`cluster server "${credentials.server}" is not a URL`, { cause: err });
    }
    if (base.protocol !== 'https:' && base.protocol !== 'http:') {
      throw new ConnectionConfigError(`cluster server ${credentials.server} must use https`);
    }
    if (!!credentials.clientCertData !== !!credentials.clientKeyData) {
      throw new ConnectionConfigError(`cluster ${credentials.server}: client certificate and key must be given together`);
    }
    if (credentials.token && credentials.tokenFile) {
      throw new ConnectionConfigError(`cluster ${credentials.server}: give a token or a token file, not both`);
    }
    if (!credentials.token && !credentials.tokenFile && !credentials.clientCertData) {
      throw new ConnectionConfigError(`cluster ${credentials.server}: needs a bearer token or a client certificate and key (or a token file)`);
    }
    if (!(opts.requestTimeoutMs > 0)) throw new ConnectionConfigError(`cluster ${credentials.server}: requestTimeoutMs must be positive`);
    for (const [field, pem] of [['caData', credentials.caData], ['clientCertData', credentials.clientCertData], ['clientKeyData', credentials.clientKeyData]] as const) {
      if (pem !== undefined && !pem.includes('-----BEGIN ')) {
        throw new ConnectionConfigError(`cluster ${credentials.server}: ${field} is not PEM (expected "-----BEGIN …")`);
      }
    }
    // credentials always go with the requests: never in clear across a network
    if (base.protocol === 'http:' && !isLoopbackHost(base.hostname)) {
      throw new ConnectionConfigError(`cluster server ${credentials.server}: plain http:// is only allowed to loopback (credentials would travel in clear); use https://`);
    }
    const connect = { ...tlsContext(credentials), rejectUnauthorized: !credentials.insecureSkipTLSVerify };
    const agent = new (undici().Agent)({
      connections: 16,
      ...(opts.keepAliveMs !== undefined ? { keepAliveTimeout: opts.keepAliveMs } : {}),
      connect: opts.egress ? egressConnector(opts.egress, { plainHttpLoopbackOnly: true, connect }) : connect,
    });
    const transport: Transport = {
      agent,
      limiter: new TokenBucket(opts.qps, opts.burst),
      base,
      token: credentials.token || undefined,
      tokenFile: credentials.tokenFile ? new TokenFile(credentials.tokenFile, opts.tokenRefreshMs, opts.now) : undefined,
    };
    return new ClusterConnection(transport, opts, undefined, base.origin);
  }

  /** A view of this connection that acts as someone else; shares the pool and rate limiter. */
  impersonate(impersonation: Impersonation): ClusterConnection {
    if (!impersonation.user) throw new ConnectionConfigError('impersonation needs a user name');
    return new ClusterConnection(this.transport, this.options, impersonation, this.server, this.signal);
  }

  /**
   * A view with a rate limiter of its own (the connection's qps and burst), for one
   * user's budget on a shared pool; shares the sockets, identity and signal.
   */
  withOwnRateLimit(): ClusterConnection {
    return new ClusterConnection({ ...this.transport, limiter: new TokenBucket(this.options.qps, this.options.burst) }, this.options, this.impersonation, this.server, this.signal);
  }

  /** A view whose requests are aborted with `signal`; shares the pool, limiter and identity. */
  withSignal(signal: AbortSignal): ClusterConnection {
    return new ClusterConnection(this.transport, this.options, this.impersonation, this.server, signal);
  }

  private async headers(req: Pick<ApiRequest, 'body' | 'contentType'>): Promise<string[]> {
    const h = ['accept', 'application/json', 'user-agent', this.options.userAgent];
    const token = this.transport.tokenFile ? await this.transport.tokenFile.token() : this.transport.token;
    if (token) h.push('authorization', `Bearer ${token}`);
    if (req.body !== undefined) h.push('content-type', req.contentType ?? 'application/json');
    if (this.impersonation) {
      h.push('impersonate-user', this.impersonation.user);
      // one line per group: a comma-joined line would be read as a single group name
      for (const g of this.impersonation.groups ?? []) h.push('impersonate-group', g);
    }
    return h;
  }

  /**
   * Sends one request; returns the parsed JSON body, throws KubeApiError (or a subclass) on non-2xx.
   * The whole exchange, body included, must finish within the request's deadline
   * (RequestTimeoutError otherwise): undici's own timeouts only bound the gaps between chunks.
   */
  async request<T = unknown>(req: ApiRequest): Promise<T> {
    const url = this.url(req);
    const timeoutMs = req.timeoutMs ?? this.options.requestTimeoutMs;
    const started = Date.now();
    let statusCode = 0;
    const deadline = new AbortController();
    // made only when the deadline passes: an error's stack costs more than most requests' own work
    let timeout: RequestTimeoutError | undefined;
    let timer: NodeJS.Timeout | undefined;
    // one controller for both the deadline and the view's signal (AbortSignal.any would keep
    // a dependent per request on a signal that may live for a whole reconcile)
    const onAbort = () => deadline.abort(this.signal?.reason);
    try {
      this.signal?.throwIfAborted();
      await this.transport.limiter.take();
      const headers = await this.headers(req);
      this.signal?.throwIfAborted();
      this.signal?.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(() => deadline.abort((timeout = new RequestTimeoutError(req.method, url.pathname, timeoutMs, req.subject))), timeoutMs);
      const signal = deadline.signal;
      const res = await undici().request(url, {
        method: req.method,
        headers,
        body: req.body === undefined ? undefined : stringifyExactJson(req.body),
        dispatcher: this.transport.agent,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      statusCode = res.statusCode;
      const text = await readBounded(res, this.options.maxResponseBytes, () => new ResponseTooLargeError(req.method, url.pathname, res.statusCode, this.options.maxResponseBytes, req.subject));
      const parsed = parseJson(text);
      if (statusCode >= 200 && statusCode < 300) return parsed as T;
      if (statusCode === 404 && req.absentAsUndefined) return undefined as T;
      // a rotated token: read the file again on the next request
      if (statusCode === 401) this.transport.tokenFile?.invalidate();
      throw apiError(req.method, url.pathname, statusCode, apiStatusOf(parsed), req.subject);
    } catch (err) {
      if (err instanceof KubeApiError && err.statusCode !== 0) throw err;
      if (timeout && deadline.signal.reason === timeout) throw timeout;
      if (err instanceof KubeApiError || err instanceof ConnectionConfigError) throw err;
      throw new KubeApiError(req.method, url.pathname, 0, { message: err instanceof Error ? err.message : String(err) }, req.subject, { cause: err });
    } finally {
      clearTimeout(timer);
      this.signal?.removeEventListener('abort', onAbort);
      this.options.onRequest?.({
        method: req.method,
        path: url.pathname,
        pathTemplate: apiPathTemplate(url.pathname),
        statusCode,
        durationMs: Date.now() - started,
      });
    }
  }

  /**
   * Opens a streaming GET (e.g. `?watch=1`) and yields each newline-delimited JSON document as it
   * arrives. Same auth, impersonation, rate limiter (one token) and view signal as `request`;
   * non-2xx answers throw the same KubeApiError subclasses. The idle deadline only runs while
   * waiting for the server: time spent by the consumer between yields does not count.
   * Breaking out of the loop closes the response.
   */
  async *stream<T = unknown>(req: ApiStreamRequest): AsyncGenerator<T, void, undefined> {
    const url = this.url(req);
    const timeoutMs = req.timeoutMs ?? this.options.requestTimeoutMs;
    const idleMs = req.idleTimeoutMs ?? DEFAULT_STREAM_IDLE_MS;
    const maxLine = req.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    const started = Date.now();
    let statusCode = 0;
    const controller = new AbortController();
    const headersLate = new RequestTimeoutError(req.method, url.pathname, timeoutMs, req.subject);
    const idle = new StreamIdleError(req.method, url.pathname, idleMs, req.subject);
    let timer: NodeJS.Timeout | undefined;
    const arm = (reason: Error, ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(reason), ms);
    };
    const onAbort = () => controller.abort(this.signal?.reason);
    let body: Dispatcher.ResponseData['body'] | undefined;
    try {
      this.signal?.throwIfAborted();
      await this.transport.limiter.take();
      const headers = await this.headers({});
      this.signal?.throwIfAborted();
      this.signal?.addEventListener('abort', onAbort, { once: true });
      arm(headersLate, timeoutMs);
      const res = await undici().request(url, {
        method: req.method,
        headers,
        dispatcher: this.transport.agent,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: 0, // the idle timer below bounds gaps, paused while the consumer works
      });
      statusCode = res.statusCode;
      body = res.body;
      if (statusCode < 200 || statusCode >= 300) {
        arm(headersLate, timeoutMs);
        const text = await readBounded(res, this.options.maxResponseBytes, () => new ResponseTooLargeError(req.method, url.pathname, statusCode, this.options.maxResponseBytes, req.subject));
        if (statusCode === 401) this.transport.tokenFile?.invalidate();
        throw apiError(req.method, url.pathname, statusCode, apiStatusOf(parseJson(text)), req.subject);
      }
      const lines = new LineSplitter(maxLine, () => new ResponseTooLargeError(req.method, url.pathname, statusCode, maxLine, req.subject, 'stream line'));
      const decode = (line: Buffer): T => {
        const text = line.toString('utf8');
        try {
          return parseExactJson(text) as T;
        } catch (err) {
          throw new StreamDecodeError(req.method, url.pathname, statusCode, line.length, req.subject, { cause: err });
        }
      };
      arm(idle, idleMs);
      for await (const chunk of res.body) {
        clearTimeout(timer);
        for (const line of lines.push(chunk as Buffer)) yield decode(line);
        arm(idle, idleMs);
      }
      clearTimeout(timer);
      const last = lines.end();
      if (last) yield decode(last);
    } catch (err) {
      if (err instanceof KubeApiError && err.statusCode !== 0) throw err;
      const reason: unknown = controller.signal.reason;
      if (reason === idle || reason === headersLate) throw reason;
      if (err instanceof KubeApiError || err instanceof ConnectionConfigError) throw err;
      throw new KubeApiError(req.method, url.pathname, 0, { message: err instanceof Error ? err.message : String(err) }, req.subject, { cause: err });
    } finally {
      clearTimeout(timer);
      this.signal?.removeEventListener('abort', onAbort);
      if (body && !body.destroyed) body.destroy();
      this.options.onRequest?.({ method: req.method, path: url.pathname, pathTemplate: apiPathTemplate(url.pathname), statusCode, durationMs: Date.now() - started });
    }
  }

  private url(req: Pick<ApiRequest, 'path' | 'query'>): URL {
    const url = new URL(req.path, this.transport.base);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  /** Closes the connection pool (all views). */
  async close(): Promise<void> {
    await this.transport.agent.close();
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return parseExactJson(text);
  } catch {
    return undefined;
  }
}

function apiError(method: string, path: string, code: number, status: ApiStatus, subject?: string): KubeApiError {
  if (code === 404) return new NotFoundError(method, path, code, status, subject);
  if (code === 401 || code === 403) return new ForbiddenError(method, path, code, status, subject);
  if (code === 409) return new ConflictError(method, path, code, status, subject);
  return new KubeApiError(method, path, code, status, subject);
}

/** The body as text, refused (and the rest left unread) once it passes `limit` bytes. */
async function readBounded(res: Dispatcher.ResponseData, limit: number, tooLarge: () => Error): Promise<string> {
  const announced = Number(res.headers['content-length']);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    if (announced > limit) throw tooLarge();
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > limit) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    res.body.destroy();
    throw err;
  }
  return Buffer.concat(chunks).toString('utf8');
}
