// Every PascalCase reason a run can report, in one place, so that types
// enforce that no code invents another and APIs can publish them as enums.

/** Why a step failed: each EngineError carries one. */
export const FAILURE_REASONS = [
  'RegistryCredentialsFailed',
  'ClusterUnreachable',
  'BootstrapFailed',
  'ServiceAccountNotFound',
  'TenantPolicyRefused',
  'ArtifactResolveFailed',
  'ArtifactFetchFailed',
  'InvalidArtifact',
  'InvalidProject',
  'RuntimeValuesFailed',
  'InvalidBundle',
  'ModuleFetchFailed',
  'BuildFailed',
  'OwnershipConflict',
  'ApplyFailed',
  'HealthCheckFailed',
  'ComponentTimeout',
  'DependencyNotReady',
  'PruneFailed',
  'ReconciliationAborted',
  'ReconciliationFailed',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export const READY_REASON = 'ReconciliationSucceeded';
export const PROGRESSING_REASON = 'Progressing';
export const RETRY_REASON = 'ProgressingWithRetry';
export const HEALTHY_REASON = 'HealthCheckSucceeded';

/**
 * Reasons of the Ready, Reconciling and Stalled conditions: the engine's, and
 * those of a controller holding a run back (source not resolved yet, rollout
 * wave not open, suspended, a cluster mode it cannot serve yet).
 */
export const CONDITION_REASONS = [
  READY_REASON,
  PROGRESSING_REASON,
  RETRY_REASON,
  HEALTHY_REASON,
  ...FAILURE_REASONS,
  'SourcePending',
  'SourceResolveFailed',
  'RolloutWaiting',
  'Suspended',
  'AgentDisconnected',
] as const;
export type ConditionReason = (typeof CONDITION_REASONS)[number];
