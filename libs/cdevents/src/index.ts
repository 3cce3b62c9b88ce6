// CDEvents in and out (RFC "Continuous Delivery events"): the receiver of
// `artifact published`, the outbound environment, service and incident events,
// and their HTTP delivery. Plain TypeScript, shared by the hub and the agent.
export { readArtifactPublished } from './artifact-published';
export { readBoundedBody } from './body-read';
export { defaultDeliveryBackoff, retryDelayMs, type DeliveryBackoff } from './delivery-backoff';
export { CdeventsRequestError, SinkDeliveryError } from './errors';
export { buildCdevent, environmentId } from './event-build';
export { fromHttpMessage, toHttpMessage, type BindingMode } from './http-binding';
export { normaliseRepository, ociReferenceOf, revisionPurl } from './oci-reference';
export { cdeventsReceiver, defaultReceiverLimits, type MatchedProject, type ReceiverBackend, type ReceiverOptions, type ReceiverOutcome } from './receiver';
export { instanceHistories, serviceChange, type InstanceHistory, type PastRun, type ServiceChange } from './service-change';
export { isAuthentic, SIGNATURE_HEADER, signBody } from './signature';
export { defaultSinkPostOptions, postCdevent, type SinkPostOptions, type SinkTarget } from './sink-post';
export { postWebhook, type WebhookPostOptions, type WebhookTarget } from './webhook-post';
export * from './types';
