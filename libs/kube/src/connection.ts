// A connection to one API server from explicit credentials: TLS, auth, impersonation,
// rate limiting and request counting. Never reads a kubeconfig.
import { Agent, request as undiciRequest } from 'undici';
import { apiPathTemplate } from './api-path';
import { DEFAULT_BURST, DEFAULT_QPS } from './constants';
import { ConflictError, ConnectionConfigError, ForbiddenError, KubeApiError, NotFoundError, type ApiStatus } from './errors';
import { TokenBucket } from './rate-limiter';

export interface ClusterCredentials {
  /** https://host:port (http:// only for tests against a local insecure server) */
  server: string;
  /** PEM of the CA that signed the serving certificate; system CAs when absent */
  caData?: string;
  /** bearer token */
  token?: string;
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

/** The identity a Project's service account has, groups included (the API server adds none). */
export function serviceAccountImpersonation(namespace: string, name: string): Impersonation {
  return {
    user: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
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
  /** per-request timeout in milliseconds */
  requestTimeoutMs: number;
  userAgent: string;
  /** called after every request (the hub exports counts as metrics); must not throw */
  onRequest?: (event: RequestEvent) => void;
}

export function defaultConnectionOptions(): ConnectionOptions {
  return { qps: DEFAULT_QPS, burst: DEFAULT_BURST, requestTimeoutMs: 30_000, userAgent: 'flotilla' };
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
}

/** Transport shared by a connection and its impersonating views. */
interface Transport {
  agent: Agent;
  limiter: TokenBucket;
  base: URL;
  auth: string[];
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
    if (!credentials.token && !credentials.clientCertData) {
      throw new ConnectionConfigError(`cluster ${credentials.server}: needs a bearer token or a client certificate and key`);
    }
    for (const [field, pem] of [['caData', credentials.caData], ['clientCertData', credentials.clientCertData], ['clientKeyData', credentials.clientKeyData]] as const) {
      if (pem !== undefined && !pem.includes('-----BEGIN ')) {
        throw new ConnectionConfigError(`cluster ${credentials.server}: ${field} is not PEM (expected "-----BEGIN …")`);
      }
    }
    const agent = new Agent({
      connections: 16,
      connect: {
        ca: credentials.caData,
        cert: credentials.clientCertData,
        key: credentials.clientKeyData,
        rejectUnauthorized: !credentials.insecureSkipTLSVerify,
      },
    });
    const auth = credentials.token ? ['authorization', `Bearer ${credentials.token}`] : [];
    const transport: Transport = { agent, limiter: new TokenBucket(opts.qps, opts.burst), base, auth };
    return new ClusterConnection(transport, opts, undefined, base.origin);
  }

  /** A view of this connection that acts as someone else; shares the pool and rate limiter. */
  impersonate(impersonation: Impersonation): ClusterConnection {
    if (!impersonation.user) throw new ConnectionConfigError('impersonation needs a user name');
    return new ClusterConnection(this.transport, this.options, impersonation, this.server, this.signal);
  }

  /** A view whose requests are aborted with `signal`; shares the pool, limiter and identity. */
  withSignal(signal: AbortSignal): ClusterConnection {
    return new ClusterConnection(this.transport, this.options, this.impersonation, this.server, signal);
  }

  private headers(req: ApiRequest): string[] {
    const h = ['accept', 'application/json', 'user-agent', this.options.userAgent, ...this.transport.auth];
    if (req.body !== undefined) h.push('content-type', req.contentType ?? 'application/json');
    if (this.impersonation) {
      h.push('impersonate-user', this.impersonation.user);
      // one line per group: a comma-joined line would be read as a single group name
      for (const g of this.impersonation.groups ?? []) h.push('impersonate-group', g);
    }
    return h;
  }

  /** Sends one request; returns the parsed JSON body, throws KubeApiError (or a subclass) on non-2xx. */
  async request<T = unknown>(req: ApiRequest): Promise<T> {
    const url = new URL(req.path, this.transport.base);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const started = Date.now();
    let statusCode = 0;
    try {
      this.signal?.throwIfAborted();
      await this.transport.limiter.take();
      const res = await undiciRequest(url, {
        method: req.method,
        headers: this.headers(req),
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        dispatcher: this.transport.agent,
        signal: this.signal,
        headersTimeout: this.options.requestTimeoutMs,
        bodyTimeout: this.options.requestTimeoutMs,
      });
      statusCode = res.statusCode;
      const text = await res.body.text();
      const parsed = parseJson(text);
      if (statusCode >= 200 && statusCode < 300) return parsed as T;
      const status: ApiStatus = parsed && typeof parsed === 'object' ? (parsed as ApiStatus) : { message: text.slice(0, 500) };
      throw apiError(req.method, url.pathname, statusCode, status, req.subject);
    } catch (err) {
      if (err instanceof KubeApiError) throw err;
      throw new KubeApiError(req.method, url.pathname, 0, { message: err instanceof Error ? err.message : String(err) }, req.subject, { cause: err });
    } finally {
      this.options.onRequest?.({
        method: req.method,
        path: url.pathname,
        pathTemplate: apiPathTemplate(url.pathname),
        statusCode,
        durationMs: Date.now() - started,
      });
    }
  }

  /** Closes the connection pool (all views). */
  async close(): Promise<void> {
    await this.transport.agent.close();
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
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
