// Public surface of @flotilla/engine: the reconcile of one Project on one
// cluster (Nest-free; the hub scheduler and the agent both call it).
export * from './types';
export * from './errors';
export * from './options';
export { reconcileProject, formatRevision, type ReconcileDeps } from './project-reconcile';
export { normalizeKubeVersion } from './kube-version';
export { reconcileComponent, type ComponentRun } from './component-reconcile';
export { runDag, checkDag, DagCycleError, type DagNode, type DagOutcome, type DagRunOptions } from './dag-run';
export { withDeadline, DeadlineExceeded } from './deadline';
export { backoffDelay, nextRetryAt, defaultBackoffOptions, type BackoffOptions } from './backoff';
export { runStatus, reconcilingStatus, runErrors, READY_REASON, PROGRESSING_REASON, RETRY_REASON, type Condition, type ConditionType, type Decision, type RunStatus } from './conditions';
export { countChanges, addCounts, emptyCounts, summarizeInstances, type InstanceSummary } from './change-counts';
export { planPrune, instanceKey, type StoredInstanceRef } from './prune-plan';
export { listProjectInstances, pruneInstance } from './instance-prune';
export { PROJECT_NAME_LABEL, PROJECT_NAMESPACE_LABEL, PROJECT_COMPONENT_LABEL, instanceLabels, projectSelector } from './labels';
export { SourceCache, defaultSourceCacheOptions, resolveTag, sourceReference, type SourceCacheOptions } from './source-fetch';
export { resolveRegistryCredentials, projectCredentialSource, pullSecretConfigs, pullSecretCredentialSource, type ResolvedCredentials } from './registry-credentials';
export { RegistryClients } from './registry-clients';
export { TimoniManifestGenerator, defaultTimoniGeneratorOptions, type TimoniGeneratorOptions } from './timoni-generator';
export { summarizeComponents, type ComponentSummary } from './run-summary';
export { instanceEventText, instanceKubeEvent, EVENT_MESSAGE_LIMIT, EVENT_SOURCE, type InstanceEventReason, type InstanceEventText } from './instance-event';
