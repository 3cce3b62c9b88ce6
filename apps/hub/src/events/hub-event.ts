import type { OutboundKind, RolloutWave } from '@flotilla/cdevents';
import { FAILURE_REASONS, INSTANCE_EVENT_REASONS } from '@flotilla/engine';

/** Every reason a hub event may carry: the Project's lifecycle, its Targets', and what runs report. */
export const HUB_EVENT_REASONS = [
  'Created',
  'SpecChanged',
  'Suspended',
  'Resumed',
  'ReconcileRequested',
  'DeletionRequested',
  'ProjectDeleted',
  'TargetAdded',
  'TargetRemoved',
  'OutsideTenantDestinations',
  'NewRevision',
  'RolloutWaiting',
  'RolledBack',
  'WaveProgressing',
  'WaveAwaitingApproval',
  'WaveSoaking',
  'WaveDone',
  'WaveFailed',
  'WaveRolledBack',
  'SourceResolveFailed',
  'InstancesDeleted',
  'InstancesOrphaned',
  'Recovered',
  ...INSTANCE_EVENT_REASONS,
  ...FAILURE_REASONS,
] as const;
export type HubEventReason = (typeof HUB_EVENT_REASONS)[number];

/** Something that happened to a Project, on one cluster or on all; the one shape every sink receives. */
export interface HubEvent {
  projectId: string;
  /** null when the event concerns the Project as a whole */
  clusterName: string | null;
  type: 'Normal' | 'Warning';
  reason: HubEventReason;
  message: string;
  /** the source digest the event is about, when there is one */
  revision?: string;
  /** the bundle component (Timoni instance group) it is about */
  component?: string;
  /** the Timoni instance it is about */
  instance?: string;
  /** the namespace of that instance */
  namespace?: string;
  /** the CDEvent it also is, when its recorder decided one (service and incident events); lifecycle reasons map by themselves */
  cdevent?: OutboundKind;
  /** a rollout wave's change of state: told to CDEvents sinks (custom data) and the Project's chat webhook */
  wave?: RolloutWave;
  /** already a core/v1 Event in its cluster (the agent records its own there): no sink writes it again */
  inCluster?: boolean;
}

/** An event as recorded: with the time the hub's clock gave it. */
export interface RecordedEvent extends HubEvent {
  time: Date;
}

/**
 * Somewhere events go besides the hub's history (Kubernetes Events, CDEvents).
 * `deliver` should bound its own time; the hub never waits for it.
 */
export interface EventSink {
  /** short and stable: it labels the sink's metrics and log lines */
  readonly name: string;
  deliver(event: RecordedEvent): Promise<void>;
}
