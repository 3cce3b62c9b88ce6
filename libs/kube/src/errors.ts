// Typed errors of libs/kube. Each names the object (or endpoint) involved and keeps the cause.
import type { ChangeSet, ObjectHealth } from './types';

export class KubeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** An object given to the engine is malformed (missing kind/name, bad inventory id, …). */
export class InvalidObjectError extends KubeError {
  constructor(message: string, readonly subject: string, options?: { cause?: unknown }) {
    super(`${subject}: ${message}`, options);
  }
}

/** Bad connection settings (no server, no credentials, unreadable PEM). */
export class ConnectionConfigError extends KubeError {}

/** A kubeconfig that cannot be used; the message starts with `kubeconfig:` and says why. */
export class KubeconfigError extends ConnectionConfigError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`kubeconfig: ${message}`, options);
  }
}

/** The in-cluster configuration (service-account files, service env) is missing or unusable. */
export class InClusterConfigError extends ConnectionConfigError {}

/** The `Status` body the API server returns with errors. */
export interface ApiStatus {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; group?: string; kind?: string; causes?: Array<{ reason?: string; message?: string; field?: string }> };
}

/** A request the API server answered with a non-2xx status, or one that failed on the wire. */
export class KubeApiError extends KubeError {
  constructor(
    readonly method: string,
    readonly path: string,
    /** HTTP status; 0 when the request never got an answer */
    readonly statusCode: number,
    readonly status: ApiStatus | undefined,
    readonly subject?: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${subject ? `${subject}: ` : ''}${method} ${path}: ${statusCode ? `${statusCode} ${status?.reason ?? ''}`.trim() : 'no response'}${status?.message ? `: ${status.message}` : ''}`,
      options,
    );
  }

  get reason(): string | undefined {
    return this.status?.reason;
  }
}

/** No complete response (headers and body) arrived within the request's total deadline. */
export class RequestTimeoutError extends KubeApiError {
  constructor(method: string, path: string, readonly timeoutMs: number, subject?: string) {
    super(method, path, 0, { message: `no complete response within ${timeoutMs}ms (request timeout)` }, subject);
  }
}

/** A response body (or one line of a stream: `what`) larger than allowed, refused while reading. */
export class ResponseTooLargeError extends KubeApiError {
  constructor(method: string, path: string, statusCode: number, readonly limitBytes: number, subject?: string, what = 'response body') {
    super(method, path, statusCode, { message: `${what} larger than ${limitBytes} bytes; refused while reading` }, subject);
  }
}

/** A stream (watch) sent no bytes for longer than its idle deadline. */
export class StreamIdleError extends KubeApiError {
  constructor(method: string, path: string, readonly idleTimeoutMs: number, subject?: string) {
    super(method, path, 0, { message: `no bytes for ${idleTimeoutMs}ms (stream idle timeout)` }, subject);
  }
}

/** A stream line that is not a JSON document. */
export class StreamDecodeError extends KubeApiError {
  constructor(method: string, path: string, statusCode: number, lineBytes: number, subject?: string, options?: { cause?: unknown }) {
    // the line itself is not shown: it is whatever the server sent
    super(method, path, statusCode, { message: `stream line of ${lineBytes} bytes is not JSON` }, subject, options);
  }
}

/** 404 from the API server: the object (or its kind) does not exist. */
export class NotFoundError extends KubeApiError {}

/** 401/403: the identity may not do this. */
export class ForbiddenError extends KubeApiError {}

/** 409 Conflict (other than field-manager conflicts handled by force). */
export class ConflictError extends KubeApiError {}

/** The API server knows no resource for this apiVersion/kind. */
export class UnknownKindError extends KubeError {
  constructor(readonly apiVersion: string, readonly kind: string, options?: { cause?: unknown }) {
    super(`no resource for kind ${kind} in ${apiVersion} on the API server (is its CRD installed?)`, options);
  }
}

/**
 * Server-side dry-run apply rejected the object. `immutable` marks errors that
 * force may fix by recreating (§5.4 counts every 409/422); the hint about force
 * is only given when the server's message names an immutable field, so an
 * invalid value is not mistaken for one.
 */
export class DryRunError extends KubeError {
  constructor(readonly subject: string, readonly immutable: boolean, options: { cause: unknown }) {
    const cause = messageOf(options.cause);
    const hint = immutable && /immutable/i.test(cause) ? ' (immutable field; set action.timoni.sh/force: enabled or the force option to recreate it)' : '';
    super(`${subject} dry-run failed${hint}: ${cause}`, options);
  }
}

/** Apply (after a successful dry run) failed. */
export class ApplyError extends KubeError {
  constructor(readonly subject: string, options: { cause: unknown }) {
    super(`${subject} apply failed: ${messageOf(options.cause)}`, options);
  }
}

/**
 * A staged apply stopped at a failing stage (`cause`: the dry run, apply or stage wait that
 * failed). `changeSet` lists what was done before it stopped: every earlier stage, and the
 * failing stage's objects that were applied or found unchanged (Flux ssa returns it beside the error).
 */
export class StagedApplyError extends KubeError {
  constructor(readonly stage: string, readonly changeSet: ChangeSet, options: { cause: unknown }) {
    super(`apply stage ${stage}: ${messageOf(options.cause)}`, options);
  }
}

/** Deleting objects (prune or instance delete) failed for at least one object. */
export class DeleteError extends KubeError {
  constructor(
    readonly failures: Array<{ subject: string; error: Error }>,
    /** what was done before and despite the failures */
    readonly changeSet?: ChangeSet,
  ) {
    super(`delete failed for ${failures.map((f) => `${f.subject} (${f.error.message})`).join('; ')}`, {
      cause: failures[0]?.error,
    });
  }
}

/** Waiting for readiness ended because at least one object reported Failed. */
export class WaitFailedError extends KubeError {
  constructor(readonly objects: ObjectHealth[]) {
    super(`objects failed: ${describe(objects)}`);
  }
}

/** Waiting ran out of time; lists every object that is not ready with its status. */
export class WaitTimeoutError extends KubeError {
  constructor(readonly timeoutMs: number, readonly objects: ObjectHealth[]) {
    super(`timeout after ${Math.round(timeoutMs / 1000)}s waiting for ${objects.length} object(s): ${describe(objects)}`);
  }
}

/** Applied, but not ready (wait failed or timed out); pruning still ran (§5.7 step 3). */
export class ReadinessError extends KubeError {
  /** `applied`: what the steps up to the failing one changed, so callers can still count it. */
  constructor(readonly instance: string, readonly step: string, readonly applied: ChangeSet, readonly pruned: ChangeSet, options: { cause: unknown }) {
    super(`instance ${instance}: apply step "${step}" is not ready: ${messageOf(options.cause)}`, options);
  }
}

/** The instance exists but belongs to another bundle (or to none); §3.4. */
export class OwnershipConflictError extends KubeError {
  constructor(readonly instance: string, readonly owner: string | undefined, readonly wanted: string | undefined) {
    super(
      `instance ${instance} is owned by ${owner ? `bundle ${owner}` : 'no bundle'}, not ${wanted ? `bundle ${wanted}` : 'a standalone apply'}; ` +
        'set overwriteOwnership to take it over',
    );
  }
}

/**
 * The instance's inventory Secret carries other owner labels than the apply expects
 * (InstanceApplyOptions.owner) and overwriteOwnership is not set.
 */
export class InstanceOwnershipError extends KubeError {
  constructor(
    /** `namespace/name` */
    readonly instance: string,
    /** the current owner: the stored values of the owner label keys */
    readonly owner: Record<string, string>,
    readonly wanted: Record<string, string>,
  ) {
    super(`instance ${instance} belongs to another owner (${formatLabels(owner)}), not ${formatLabels(wanted)}`);
  }
}

/** The inventory (state) Secret cannot be read or parsed. */
export class InventoryError extends KubeError {}

/** Listing inventory Secrets failed; `namespace` when it was the namespace-by-namespace fallback. */
export class InventoryListError extends InventoryError {
  constructor(readonly namespace: string | undefined, options: { cause: unknown }) {
    super(`list inventory Secrets${namespace ? ` in namespace ${namespace}` : ''}: ${messageOf(options.cause)}`, options);
  }
}

/**
 * Leader election on a Lease: bad options, or one step (acquire, renew, release, a callback)
 * that failed; `cause` is the API error. Reported to `onError`, the elector retries.
 */
export class LeaderElectionError extends KubeError {
  constructor(
    /** `Lease/namespace/name` */
    readonly lease: string,
    readonly action: 'configure' | 'acquire' | 'renew' | 'release' | 'callback',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${lease}: ${message}`, options);
  }
}

/** A `k8s:` runtime reference does not have a valid shape. */
export class RuntimeRefError extends KubeError {}

function formatLabels(labels: Record<string, string>): string {
  return Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(', ');
}

function describe(objects: ObjectHealth[]): string {
  return objects.map((o) => `${o.subject} status: '${o.status}'${o.message ? ` (${o.message})` : ''}`).join('; ');
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function isNotFound(err: unknown): err is NotFoundError {
  return err instanceof NotFoundError;
}

/** A watch's resourceVersion is too old (410 Gone, as an answer or an ERROR event): the watcher relists. */
export class WatchExpiredError extends KubeError {
  constructor(readonly subject: string, readonly resourceVersion: string | undefined, options?: { cause?: unknown }) {
    super(`${subject}: resourceVersion ${resourceVersion ?? '(none)'} expired (410 Gone); relisting`, options);
  }
}

/** A watch sent an ERROR event (other than 410) or an event that cannot be used. */
export class WatchEventError extends KubeError {
  constructor(readonly subject: string, message: string, readonly status?: ApiStatus) {
    super(`${subject}: watch ${message}`);
  }
}

/** A watch handler threw; the watcher relists so the caller gets a full set again. */
export class WatchHandlerError extends KubeError {
  constructor(readonly subject: string, readonly handler: 'synced' | 'event', options: { cause: unknown }) {
    super(`${subject}: ${handler} handler failed: ${messageOf(options.cause)}; relisting`, options);
  }
}
