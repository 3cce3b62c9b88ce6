/** The CDEvents release whose events Flotilla emits. */
export const SPEC_VERSION = '0.5.1';

/** The outbound event kinds: a Project is an environment, a Timoni instance a service, a failing reconcile an incident. */
export const OUTBOUND_KINDS = [
  'environment.created',
  'environment.modified',
  'environment.deleted',
  'service.deployed',
  'service.upgraded',
  'service.rolledback',
  'service.removed',
  'incident.detected',
  'incident.resolved',
] as const;
export type OutboundKind = (typeof OUTBOUND_KINDS)[number];

/** Every outbound subject's version in the v0.5 release (`dev.cdevents.<kind>.<version>`). */
export const SUBJECT_VERSION = '0.3.0';

/** A CDEvent as JSON: the context, the subject, and Flotilla's facts as custom data. */
export interface CDEvent {
  context: {
    specversion?: string;
    /** v0.3 and v0.4 name the spec version `version` */
    version?: string;
    id: string;
    source: string;
    type: string;
    timestamp: string;
    chainId?: string;
    schemaUri?: string;
    links?: unknown[];
  };
  subject: {
    id: string;
    source?: string;
    type?: string;
    content: Record<string, unknown>;
  };
  customData?: unknown;
  customDataContentType?: string;
}

/** What Flotilla knows about something that happened, the input of every outbound event. */
export interface EventFacts {
  /** unique and stable: a sink deduplicates on it */
  id: string;
  time: Date;
  /** the producer, a URI reference (`/flotilla/hub`, `/flotilla/agent/<cluster>`) */
  source: string;
  kind: OutboundKind;
  project: { name: string; namespace: string };
  /** the Project's OCI repository, `oci://host/path` */
  repository?: string;
  cluster?: string;
  /** `tag@sha256:…` */
  revision?: string;
  instance?: { name: string; namespace: string; component?: string };
  /** the reason and text Flotilla recorded with it */
  reason: string;
  message: string;
  /** for incidents and failures */
  error?: string;
  /** a rollout wave that changed state (environment.modified) */
  wave?: RolloutWave;
}

/** A rollout wave's new state and its Targets' counts when it changed: custom data `flotilla.wave`. */
export interface RolloutWave {
  index: number;
  groups: string[];
  /** waiting, awaitingApproval, progressing, soaking, done, failed or rolledBack */
  state: string;
  /** the state announced before */
  previous: string;
  total: number;
  healthy: number;
  progressing: number;
  pending: number;
  failed: number;
}

/** An OCI repository named by an inbound event, normalised for matching: `host[:port]/path`, lower case, no scheme, tag or digest. */
export interface OciRepositoryRef {
  repository: string;
  tag?: string;
  digest?: string;
}

/** An `artifact published` event as the receiver reads it. */
export interface ArtifactPublished {
  /** the CDEvents context id and source: a replay repeats both */
  id: string;
  source: string;
  /** the spec release it claims (0.3.x, 0.4.x or 0.5.x) */
  specVersion: string;
  artifact: OciRepositoryRef;
}
