import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CONDITION_REASONS, FAILURE_REASONS } from '@flotilla/engine';
import { CredentialSummaryDto } from '../clusters/clusters.dto';
import { CursorPageFields } from '../common/cursor';
import { HUB_EVENT_REASONS } from '../events/hub-event';
import { TARGET_PHASES, TARGET_REMOVALS, type TargetRemoval } from '../database/entities';
import { BOOTSTRAP_DESCRIPTION, BootstrapDto, OVERWRITE_OWNERSHIP_DESCRIPTION, TARGET_REMOVAL_DESCRIPTION, TargetsDto } from './projects.dto';
import { RolloutViewDto } from '../rollout/rollout-spec.dto';

// Response shapes of the projects API: never entities, never secrets.

export class SourceViewDto {
  @ApiProperty() repository!: string;
  @ApiProperty() tag!: string;
  @ApiProperty() path!: string;
}

export class ProjectConditionDto {
  @ApiProperty({ enum: ['Reconciling', 'TargetsRestricted', 'RolledBack'] }) type!: string;
  @ApiProperty({ enum: ['True', 'False', 'Unknown'] }) status!: string;
  @ApiProperty({ enum: ['RolloutWaiting', 'OutsideTenantDestinations', 'RolloutFailed'] }) reason!: string;
  @ApiProperty() message!: string;
  @ApiProperty() lastTransitionTime!: string;
}

export class ProjectStatusDto {
  @ApiProperty({
    type: [ProjectConditionDto],
    description:
      "Reconciling=True RolloutWaiting while a rollout wave holds Targets back, naming the revision, the groups held and the group they wait for; TargetsRestricted=True OutsideTenantDestinations while the targets match clusters outside the tenant's destinations (they get no Target), naming them; RolledBack=True RolloutFailed while the current revision is rolled back (docs/rollouts.md), naming it",
  })
  conditions!: ProjectConditionDto[];
  @ApiProperty({ description: 'number of Targets' }) targets!: number;
  @ApiProperty({ description: 'Targets in phase Ready, the unhealthy ones included' }) ready!: number;
  @ApiProperty({ description: 'of the Ready Targets, those whose applied objects are not healthy (no Healthy=True condition): the fleet state Unhealthy' }) unhealthy!: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, example: { Ready: 3, Failed: 1 } }) phases!: Record<string, number>;
  @ApiProperty({ description: 'true while a deletion with instances=delete is in progress' }) deleting!: boolean;
}

export class ProjectDto {
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'the tenant it belongs to' }) tenant!: string;
  @ApiProperty() namespace!: string;
  @ApiProperty({ type: SourceViewDto }) source!: SourceViewDto;
  @ApiProperty() serviceAccountName!: string;
  @ApiProperty({ type: TargetsDto, description: 'as given at creation or last update' }) targets!: TargetsDto;
  @ApiProperty({ type: RolloutViewDto }) rollout!: RolloutViewDto;
  @ApiProperty({ example: '10m' }) interval!: string;
  @ApiProperty() suspend!: boolean;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) annotations!: Record<string, string>;
  @ApiPropertyOptional({ type: CredentialSummaryDto, nullable: true }) registryCredentials!: CredentialSummaryDto | null;
  @ApiPropertyOptional({ nullable: true, type: String }) cdeventsSink!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'the name of the secret header sent to the sink (its value is never returned)' }) cdeventsSinkHeader!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'the chat webhook told of rollout wave transitions: its scheme and host only, to every role (the URL is a secret)' }) notificationWebhook!: string | null;
  @ApiProperty({ enum: TARGET_REMOVALS, description: TARGET_REMOVAL_DESCRIPTION }) targetRemoval!: TargetRemoval;
  @ApiProperty({ description: OVERWRITE_OWNERSHIP_DESCRIPTION }) overwriteOwnership!: boolean;
  @ApiPropertyOptional({ type: BootstrapDto, nullable: true, description: BOOTSTRAP_DESCRIPTION }) bootstrap!: BootstrapDto | null;
  @ApiProperty({ description: 'bumped on every spec change' }) generation!: number;
  @ApiProperty({ type: ProjectStatusDto }) status!: ProjectStatusDto;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
}

export class ProjectPageDto {
  @ApiProperty({ type: [ProjectDto] }) items!: ProjectDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class ConditionDto {
  @ApiProperty({ enum: ['Ready', 'Reconciling', 'Stalled', 'Healthy'], description: 'Healthy: whether what the last run applied was healthy, checked after every apply' }) type!: string;
  @ApiProperty({ enum: ['True', 'False', 'Unknown'] }) status!: string;
  @ApiProperty({ enum: CONDITION_REASONS }) reason!: string;
  @ApiProperty() message!: string;
  @ApiProperty() lastTransitionTime!: string;
}

export class ReportErrorDto {
  @ApiProperty({ enum: FAILURE_REASONS, description: 'as in the conditions' }) reason!: string;
  @ApiProperty({ enum: ['connect', 'bootstrap', 'credentials', 'resolve', 'fetch', 'load', 'runtime', 'bundle', 'build', 'apply', 'wait', 'prune', 'timeout', 'dependency'] }) step!: string;
  @ApiProperty() message!: string;
  @ApiProperty({ description: 'false: retrying the same revision cannot help' }) retryable!: boolean;
  @ApiPropertyOptional() component?: string;
  @ApiPropertyOptional() instance?: string;
  @ApiPropertyOptional({ description: 'the Kubernetes object involved, Kind/namespace/name' }) object?: string;
}

export class ChangeCountsDto {
  @ApiProperty() created!: number;
  @ApiProperty() configured!: number;
  @ApiProperty() unchanged!: number;
  @ApiProperty() deleted!: number;
  @ApiProperty() skipped!: number;
}

export class ModuleInfoDto {
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'oci://ghcr.io/stefanprodan/modules/podinfo' }) repository!: string;
  @ApiProperty() version!: string;
  @ApiProperty() digest!: string;
}

export class InstanceReportDto {
  @ApiProperty() name!: string;
  @ApiProperty() namespace!: string;
  @ApiProperty() component!: string;
  @ApiProperty({ enum: ['applied', 'pruned', 'deleted'] }) action!: string;
  @ApiPropertyOptional() bundle?: string;
  @ApiPropertyOptional({ type: ModuleInfoDto }) module?: ModuleInfoDto;
  @ApiProperty({ description: 'applied and healthy (waited for with wait, else checked once right after the apply); for pruned and deleted: gone' }) ready!: boolean;
  @ApiPropertyOptional({ type: [String], description: 'objects not healthy right after an apply without wait: Kind/namespace/name Status: message' }) notReady?: string[];
  @ApiProperty() durationMs!: number;
  @ApiProperty({ type: ChangeCountsDto }) counts!: ChangeCountsDto;
  @ApiProperty({ type: [String], description: 'Kind/namespace/name of every object applied or deleted' }) objects!: string[];
  @ApiPropertyOptional({ type: ReportErrorDto }) error?: ReportErrorDto;
}

export class InstanceRefDto {
  @ApiProperty() name!: string;
  @ApiProperty() namespace!: string;
}

export class ComponentReportDto {
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['Succeeded', 'Failed', 'Skipped'] }) status!: string;
  @ApiPropertyOptional() bundle?: string;
  @ApiPropertyOptional() startedAt?: string;
  @ApiProperty() durationMs!: number;
  @ApiProperty({ type: [InstanceRefDto], description: 'every instance the bundle declares' }) declared!: InstanceRefDto[];
  @ApiProperty({ type: [InstanceReportDto] }) instances!: InstanceReportDto[];
  @ApiPropertyOptional({ type: ReportErrorDto }) error?: ReportErrorDto;
}

export class TargetDto {
  @ApiProperty() cluster!: string;
  @ApiProperty() clusterGroup!: string;
  @ApiProperty({ enum: TARGET_PHASES }) phase!: string;
  @ApiProperty({ type: [ConditionDto] }) conditions!: ConditionDto[];
  @ApiProperty() generation!: number;
  @ApiPropertyOptional({ nullable: true, type: Number }) observedGeneration!: number | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: 'v1.2.0@sha256:…' }) lastAppliedRevision!: string | null;
  @ApiProperty({ type: [ComponentReportDto], description: 'components and their instances, as the last run reported them' }) components!: ComponentReportDto[];
  @ApiProperty({ type: [String], description: 'namespaces that hold instances of the Project on this cluster' }) namespaces!: string[];
  @ApiPropertyOptional({ nullable: true, type: String, description: 'when the Target runs next: as the hub scheduled it for a push cluster, as the agent reported it for an agent cluster (null: the agent has not reported yet)' }) nextRunAt!: string | null;
  @ApiProperty({ description: 'consecutive failures (backoff)' }) attempt!: number;
  @ApiProperty({ description: "true once the cluster left the Project's targets: the Target (phase Deleting) deletes its instances there, then goes" }) removing!: boolean;
  @ApiProperty({ description: 'the cluster\'s agent is not connected: this is the last reported state, and Ready says Unknown' }) stale!: boolean;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'when the agent disconnected; null when it never connected or the Target is not stale' }) staleSince!: string | null;
}

export class TargetPageDto {
  @ApiProperty({ type: [TargetDto] }) items!: TargetDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class RunDto {
  @ApiProperty() id!: string;
  @ApiProperty() generation!: number;
  @ApiPropertyOptional({ nullable: true, type: String }) revision!: string | null;
  @ApiProperty({ enum: ['Created', 'SpecChanged', 'NewRevision', 'Manual', 'Retry', 'Interval', 'Deletion', 'Agent'], description: 'why it ran, on a push cluster or an agent cluster alike (an agent\'s run at its interval is Interval, a retry Retry); Agent: only on runs stored by hubs before agents reported their own triggers' }) trigger!: string;
  @ApiProperty({ enum: ['Running', 'Succeeded', 'Failed', 'Abandoned'], description: 'Abandoned: its hub lost the lease before writing a result' }) result!: string;
  @ApiProperty() startedAt!: string;
  @ApiPropertyOptional({ nullable: true, type: String }) finishedAt!: string | null;
  @ApiPropertyOptional({ nullable: true, type: Number }) durationMs!: number | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'the hub replica that ran it' }) leaseOwner!: string | null;
  @ApiProperty({ type: [InstanceReportDto], description: 'instances applied, pruned or deleted' }) instances!: InstanceReportDto[];
  @ApiPropertyOptional({ nullable: true, type: String, description: 'the first error' }) error!: string | null;
  @ApiProperty({ type: [ReportErrorDto] }) errors!: ReportErrorDto[];
}

/** Newest first; follow `continue` for older runs. */
export class RunPageDto extends CursorPageFields {
  @ApiProperty({ type: [RunDto] }) items!: RunDto[];
}

export class EventDto {
  @ApiPropertyOptional({ nullable: true, type: String }) cluster!: string | null;
  @ApiProperty({ enum: ['Normal', 'Warning'] }) type!: string;
  @ApiProperty({ enum: HUB_EVENT_REASONS }) reason!: string;
  @ApiProperty() message!: string;
  @ApiProperty() time!: string;
}

/** Newest first; follow `continue` for older events. */
export class EventPageDto extends CursorPageFields {
  @ApiProperty({ type: [EventDto] }) items!: EventDto[];
}

export class ReconcileRequestedDto {
  @ApiProperty({ description: 'Targets scheduled to run now' }) requested!: number;
  @ApiProperty({ type: String, nullable: true, description: 'tag@sha256:… the tag resolved to just now (rollout waves may hold some Targets on an earlier one); null when never resolved' })
  revision!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'why the tag could not be resolved just now; the Targets then run on the revision last resolved' })
  sourceError!: string | null;
}

export class DeletionDto {
  @ApiProperty({ enum: ['deleted', 'deleting'] }) state!: 'deleted' | 'deleting';
}
