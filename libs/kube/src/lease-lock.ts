// One coordination.k8s.io/v1 Lease read and written with optimistic concurrency: every
// update carries the resourceVersion it was based on, so a concurrent writer makes it fail
// with ConflictError instead of being overwritten. The leader elector's only I/O.
import type { ClusterConnection } from './connection';
import type { ObjectMeta } from './types';

export const LEASE_API_VERSION = 'coordination.k8s.io/v1';

/** The fields of a Lease's spec that leader election uses. */
export interface LeaseSpec {
  /** '' or absent: nobody holds it (released) */
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** MicroTime `2006-01-02T15:04:05.000000Z` */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
  [field: string]: unknown;
}

export interface Lease {
  apiVersion: typeof LEASE_API_VERSION;
  kind: 'Lease';
  metadata: ObjectMeta;
  spec?: LeaseSpec;
}

/** Per call: aborts the request (the elector's run) and bounds it (renew deadline). */
export interface LeaseCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Formats a time as a Kubernetes MicroTime (RFC 3339 with six fractional digits, UTC). */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

export class LeaseLock {
  constructor(
    readonly connection: ClusterConnection,
    readonly namespace: string,
    readonly name: string,
  ) {}

  /** `Lease/namespace/name`, for messages */
  get subject(): string {
    return `Lease/${this.namespace}/${this.name}`;
  }

  private path(withName: boolean): string {
    const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.namespace)}/leases`;
    return withName ? `${base}/${encodeURIComponent(this.name)}` : base;
  }

  private view(opts: LeaseCallOptions): ClusterConnection {
    return opts.signal ? this.connection.withSignal(opts.signal) : this.connection;
  }

  /** GET; NotFoundError when the Lease does not exist. */
  async get(opts: LeaseCallOptions = {}): Promise<Lease> {
    return this.view(opts).request<Lease>({ method: 'GET', path: this.path(true), subject: this.subject, timeoutMs: opts.timeoutMs });
  }

  /** POST; ConflictError (AlreadyExists) when another replica created it first. */
  async create(spec: LeaseSpec, opts: LeaseCallOptions = {}): Promise<Lease> {
    const body: Lease = { apiVersion: LEASE_API_VERSION, kind: 'Lease', metadata: { name: this.name, namespace: this.namespace }, spec };
    return this.view(opts).request<Lease>({ method: 'POST', path: this.path(false), body, subject: this.subject, timeoutMs: opts.timeoutMs });
  }

  /**
   * PUT `spec` onto `base` (the Lease as last read or written, resourceVersion included);
   * ConflictError when the Lease changed since.
   */
  async update(base: Lease, spec: LeaseSpec, opts: LeaseCallOptions = {}): Promise<Lease> {
    if (!base.metadata.resourceVersion) throw new Error(`${this.subject}: update needs the resourceVersion it is based on`);
    const body: Lease = { ...base, apiVersion: LEASE_API_VERSION, kind: 'Lease', spec: { ...base.spec, ...spec } };
    return this.view(opts).request<Lease>({ method: 'PUT', path: this.path(true), body, subject: this.subject, timeoutMs: opts.timeoutMs });
  }
}
