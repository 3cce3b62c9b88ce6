// Public surface of @flotilla/engine: the reconcile of one Project on one
// cluster (Nest-free; the hub scheduler and the agent both call it).
export * from './types';
export * from './errors';
export * from './options';
export { reconcileProject, formatRevision, revisionDigest, type ReconcileDeps } from './project-reconcile';
export { normalizeKubeVersion } from './kube-version';
export { reconcileComponent, type ComponentRun } from './component-reconcile';
export { runDag, checkDag, DagCycleError, type DagNode, type DagOutcome, type DagRunOptions } from './dag-run';
export { withDeadline, DeadlineExceeded } from './deadline';
export { backoffDelay, defaultBackoffOptions, type BackoffOptions } from './backoff';
export { CONDITION_REASONS, FAILURE_REASONS, PROGRESSING_REASON, READY_REASON, RETRY_REASON, type ConditionReason, type FailureReason } from './reasons';
export { runStatus, reconcilingStatus, runErrors, condition, type Condition, type ConditionType, type Decision, type RunStatus, type NextAttempt } from './conditions';
export { decideNext, type RunDecision, type ScheduleContext } from './run-decision';
export { buildRunReport, reportError, nextRunAt, appliedInstance, removedInstance, RUN_REPORT_VERSION, type RunReport, type ReportError, type ReportInstance, type ReportComponent, type ReportContext, type InstanceAction } from './run-report';
export { EngineRuntime, defaultEngineRuntimeOptions, type CueStartInfo, type EngineRuntimeOptions, type RuntimeParts, type RunAccess } from './runtime';
export { deleteProject, type DeleteInput, type DeleteDeps } from './project-delete';
export { countChanges, addCounts, emptyCounts } from './change-counts';
export { planPrune, instanceKey, ownedBy, type StoredInstanceRef } from './prune-plan';
export { listProjectInstances, pruneInstance } from './instance-prune';
export { PROJECT_NAME_LABEL, PROJECT_NAMESPACE_LABEL, PROJECT_COMPONENT_LABEL, PROJECT_OWNER_LABEL, instanceLabels, projectSelector } from './labels';
export { SourceCache, defaultSourceCacheOptions, resolveTag, sourceReference, type SourceCacheOptions } from './source-fetch';
export { resolveRegistryCredentials, projectCredentialSource, pullSecretConfigs, pullSecretCredentialSource, type ResolvedCredentials } from './registry-credentials';
export { RegistryClients } from './registry-clients';
export { TimoniManifestGenerator, defaultTimoniGeneratorOptions, type TimoniGeneratorOptions } from './timoni-generator';
export { INSTANCE_EVENT_REASONS, instanceEventText, instanceKubeEvent, EVENT_MESSAGE_LIMIT, EVENT_SOURCE, type InstanceEventReason, type InstanceEventText, type InstanceEventSubject } from './instance-event';
export { failedRunResult } from './run-result';
export { INSTANCE_INFO_LABELS, instanceInfoLabels, type InstanceInfoLabels, type InstanceMetricsProject } from './instance-metrics';
export * from './project-bootstrap';
