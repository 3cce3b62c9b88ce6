// One typed error per reconcile step. Each carries the PascalCase reason the
// conditions show and whether retrying the same revision can help: a broken
// revision stalls until a new one; registry, network and API failures retry.

import type { FailureReason } from './reasons';

export type ReconcileStep =
  | 'connect'
  | 'bootstrap'
  | 'credentials'
  | 'resolve'
  | 'fetch'
  | 'load'
  | 'runtime'
  | 'bundle'
  | 'build'
  | 'apply'
  | 'wait'
  | 'prune'
  | 'timeout'
  | 'dependency';

export abstract class EngineError extends Error {
  abstract readonly step: ReconcileStep;
  /** PascalCase, for the Ready/Stalled conditions */
  abstract readonly reason: FailureReason;
  /** true when retrying the same revision may succeed */
  abstract readonly retryable: boolean;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Registry credentials could not be read (pull secrets, the Project's store). */
export class CredentialsError extends EngineError {
  readonly step = 'credentials';
  readonly reason = 'RegistryCredentialsFailed';
  readonly retryable = true;
}

/**
 * The Project, or an instance of it, would reach beyond what its tenant
 * allows. Nothing is applied; an admin widening the tenant or a fixed spec
 * lets the next run through, so it retries (with backoff).
 */
export class TenantPolicyError extends EngineError {
  readonly step = 'connect';
  readonly reason = 'TenantPolicyRefused';
  readonly retryable = true;
}

/** The target cluster did not answer (its version could not be read). */
export class ClusterUnreachableError extends EngineError {
  readonly step = 'connect';
  readonly reason = 'ClusterUnreachable';
  readonly retryable = true;
}

/**
 * The service account the run impersonates, or its namespace, does not exist
 * in the target cluster: every request as it would be refused with a 403 that
 * names neither. Someone may create them: retried.
 */
export class ServiceAccountNotFoundError extends EngineError {
  readonly step = 'connect';
  readonly reason = 'ServiceAccountNotFound';
  readonly retryable = true;
  constructor(readonly namespace: string, readonly serviceAccount: string, readonly namespaceMissing: boolean, cluster: string) {
    super(
      namespaceMissing
        ? `namespace ${namespace} does not exist in cluster ${cluster}: the Project applies as ServiceAccount ${namespace}/${serviceAccount}; create the namespace, the service account and its role binding`
        : `ServiceAccount ${namespace}/${serviceAccount} does not exist in cluster ${cluster}: the Project applies as it; create it and bind it a role`,
    );
  }
}

/**
 * Thrown by a ManifestGenerator when the failure is transient (a module
 * registry that did not answer): the engine then retries instead of stalling.
 */
export class TransientGeneratorError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransientGeneratorError';
  }
}

/** The tag could not be resolved to a digest. */
export class ResolveError extends EngineError {
  readonly step = 'resolve';
  readonly reason = 'ArtifactResolveFailed';
  readonly retryable = true;
  constructor(readonly reference: string, options: { cause: unknown }) {
    super(`resolve ${reference}: ${messageOf(options.cause)}`, options);
  }
}

/** The artifact could not be fetched or extracted. `invalid`: its content is unusable (stalls). */
export class FetchError extends EngineError {
  readonly step = 'fetch';
  readonly retryable: boolean;
  readonly reason: FailureReason;
  constructor(readonly reference: string, readonly invalid: boolean, options: { cause: unknown }) {
    super(`fetch ${reference}: ${messageOf(options.cause)}`, options);
    this.retryable = !invalid;
    this.reason = invalid ? 'InvalidArtifact' : 'ArtifactFetchFailed';
  }
}

/** project.cue is invalid (schema, files, needs, cycle): stalled until a new revision. */
export class ProjectLoadError extends EngineError {
  readonly step = 'load';
  readonly reason = 'InvalidProject';
  readonly retryable = false;
  constructor(readonly path: string, options: { cause: unknown }) {
    // libs/timoni's errors already start with `project <path or name>` and give file:line: say it once
    const detail = messageOf(options.cause);
    super(/^project \S+: /.test(detail) ? detail : `project ${path}: ${detail}`, options);
  }
}

/** A component step failed; `component` names it, `instance` when one was involved. */
export abstract class ComponentStepError extends EngineError {
  constructor(readonly component: string, readonly instance: string | undefined, what: string, options?: { cause?: unknown }) {
    super(`component ${component}${instance ? `, instance ${instance}` : ''}: ${what}${options?.cause !== undefined ? `: ${messageOf(options.cause)}` : ''}`, options);
  }
}

/** Runtime values could not be resolved (a `k8s:` query, a runtime file). Cluster state may change: retry. */
export class RuntimeValuesError extends ComponentStepError {
  readonly step = 'runtime';
  readonly reason = 'RuntimeValuesFailed';
  readonly retryable = true;
  constructor(component: string, options: { cause: unknown }) {
    super(component, undefined, 'runtime values', options);
  }
}

/** The bundle does not load or validate with the runtime values. */
export class BundleError extends ComponentStepError {
  readonly step = 'bundle';
  readonly reason = 'InvalidBundle';
  readonly retryable = false;
  constructor(component: string, options: { cause: unknown }) {
    super(component, undefined, 'bundle', options);
  }
}

/** A module could not be fetched (`fetch`: registry trouble, retried) or built (stalled). */
export class InstanceBuildError extends ComponentStepError {
  readonly step = 'build';
  readonly reason: FailureReason;
  readonly retryable: boolean;
  constructor(component: string, instance: string, readonly moduleFetch: boolean, options: { cause: unknown }) {
    super(component, instance, moduleFetch ? 'module fetch' : 'build', options);
    this.retryable = moduleFetch;
    this.reason = moduleFetch ? 'ModuleFetchFailed' : 'BuildFailed';
  }
}

/**
 * The instance exists and belongs to someone else: another Project (`owner` is
 * `Project namespace/name`), or a bundle applied by other means. Retrying cannot
 * help until the owner lets go of it or this Project takes it over, so the run stalls.
 */
export class ProjectOwnershipConflictError extends ComponentStepError {
  readonly step = 'apply';
  readonly reason = 'OwnershipConflict';
  readonly retryable = false;
  constructor(component: string, instance: string, readonly where: string, readonly owner: string, options?: { cause?: unknown }) {
    super(component, instance, `instance ${where} belongs to ${owner}; remove it from there first, or set overwriteOwnership: true on this Project to take it over`);
    // the message says all the cause does; kept for callers that walk the chain
    if (options && 'cause' in options) Object.defineProperty(this, 'cause', { value: options.cause, writable: true, configurable: true, enumerable: false });
  }
}

/** Creating (or removing) what the Project's bootstrap makes on the cluster failed. */
export class BootstrapError extends EngineError {
  readonly step = 'bootstrap';
  readonly reason = 'BootstrapFailed';
  readonly retryable = true;
}

/** Server-side apply (or the inventory write) failed. */
export class InstanceApplyError extends ComponentStepError {
  readonly step = 'apply';
  readonly reason = 'ApplyFailed';
  readonly retryable = true;
  constructor(component: string, instance: string, options: { cause: unknown }) {
    super(component, instance, 'apply', options);
  }
}

/** Applied, but not healthy in time (or a health check reported Failed). */
export class InstanceHealthError extends ComponentStepError {
  readonly step = 'wait';
  readonly reason = 'HealthCheckFailed';
  readonly retryable = true;
  constructor(component: string, instance: string, options: { cause: unknown }) {
    super(component, instance, 'health', options);
  }
}

/** The component ran past its `timeout`. */
export class ComponentTimeoutError extends ComponentStepError {
  readonly step = 'timeout';
  readonly reason = 'ComponentTimeout';
  readonly retryable = true;
  /** `cause`: what was still not ready when time ran out (a wait's per-object report), when known. */
  constructor(component: string, readonly timeoutMs: number, options?: { cause?: unknown }) {
    super(component, undefined, `did not finish within its timeout of ${formatMs(timeoutMs)}`, options);
  }
}

/** Not run because a component it needs failed (or was itself skipped). */
export class DependencyNotReadyError extends ComponentStepError {
  readonly step = 'dependency';
  readonly reason = 'DependencyNotReady';
  readonly retryable = true;
  constructor(component: string, readonly blockedBy: string[]) {
    super(component, undefined, `not run: needs ${blockedBy.join(', ')}, which did not succeed`);
  }
}

/** Deleting an instance that left its component or the project failed. */
export class PruneError extends EngineError {
  readonly step = 'prune';
  readonly reason = 'PruneFailed';
  readonly retryable = true;
  constructor(readonly instance: string, options: { cause: unknown }) {
    super(`prune instance ${instance}: ${messageOf(options.cause)}`, options);
  }
}

/** The run was aborted by its caller (shutdown, lost lease). */
export class RunAbortedError extends EngineError {
  readonly step = 'timeout';
  readonly reason = 'ReconciliationAborted';
  readonly retryable = true;
}

/** A failure no step foresaw (a bug, or a caller's own error around the engine): retried. */
export class UnexpectedRunError extends EngineError {
  readonly step = 'apply';
  readonly reason = 'ReconciliationFailed';
  readonly retryable = true;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function formatMs(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
